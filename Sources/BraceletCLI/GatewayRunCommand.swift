import ArgumentParser
import BraceletGateway
import BraceletStore
import BraceletSync
import BraceletTransport
import CHeapTuning
import Foundation

/// `bracelet gateway run`: the service itself.
struct GatewayRunCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the gateway: sync every enrolled bracelet on schedule and deliver the outbox, until SIGTERM.",
        discussion: """
            Each enrolled bracelet whose last sync is older than --interval is synced when it is \
            reachable (radio bracelets: when heard advertising on --adapter; --via endpoints: tried on \
            the schedule), up to --max-links at the same time. A standard sensor (a heart-rate strap, a \
            pulse oximeter, a thermometer) has no memory, so it is kept subscribed while it is in range \
            (up to 4 sensors, counted apart from --max-links, so that straps never hold up bracelets) \
            and connected again as soon as it can be: its values are stored every few seconds, today's \
            summary is recomputed every --interval seconds (at most every 5 minutes) and at the day's \
            end, and not_sending fires when it has sent nothing for --not-sending-minutes. A failed sync is retried after a wait \
            that doubles per failure (1 min up to 1 h). The outbox goes to the one sink given, with \
            sync's retry, pause and dead-letter rules. SIGHUP reads the enrolments again (they are also \
            read every 5 s). SIGTERM or SIGINT stops at the next safe point: nothing committed is lost, \
            nothing uncommitted is erased. Under systemd (Type=notify) it sends READY=1, STATUS= and \
            WATCHDOG=1.
            """
    )

    @Option(help: "The bracelet database (enrolments, samples, summaries, outbox).")
    var db: String

    @Option(help: "Adapter for radio bracelets (default: the first).")
    var adapter: String?

    @Option(help: "POST each outbox entry to this http(s) URL.")
    var webhook: String?

    @OptionGroup var secretOptions: WebhookSecretOptions

    @Option(help: "Append each outbox entry to this JSON Lines file.")
    var jsonl: String?

    @Option(help: "Upsert outbox entries into this PostgreSQL fleet database (default, with no other sink: $BRACELET_POSTGRES_URL or the systemd credential postgres-url).")
    var postgres: String?

    @Option(help: "Read the --postgres URL from this file (mode 0600 or stricter).")
    var postgresFile: String?

    @Option(help: "How long the sink may keep a delivery waiting, seconds: a webhook request (default 10), a PostgreSQL statement (default 30).")
    var timeout: Double?

    @Option(help: "Sync a bracelet again once its last sync is this old (seconds).")
    var interval: Int = 900

    @Option(help: "Bracelets synced at the same time, at most (standard sensors kept subscribed are counted apart, up to 4).")
    var maxLinks: Int = 3

    @Option(help: "Serve Prometheus metrics on this loopback address (127.0.0.1:PORT).")
    var metrics: String?

    @Option(help: "Raise not_heard once a bracelet is silent this long (hours).")
    var notHeardHours: Double = 24

    @Option(help: "Raise battery_low at or below this percent.")
    var batteryLow: Int = 15

    @Option(help: "Raise not_sending once an enrolled standard sensor has sent nothing this long (minutes).")
    var notSendingMinutes: Double = 5

    @OptionGroup var log: LogOptions

    @OptionGroup var progress: ProgressOptions

    // Tests and soaks: calendar time runs this many times faster than real time from --time-origin
    // (Unix s), the same on the simulator (`simulate --time-scale`), so weeks pass in minutes.
    @Option(help: .hidden) var timeScale: Double = 1
    @Option(help: .hidden) var timeOrigin: Int64?
    @Option(help: .hidden) var timeStart: Int64?
    @Option(help: .hidden) var retryBaseSeconds: Int64 = 60
    @Option(help: .hidden) var retryCapSeconds: Int64 = 3_600

    func validate() throws {
        let sinks = [webhook, jsonl, postgres ?? postgresFile].compactMap { $0 }
        if sinks.count > 1 { throw ValidationError("give one sink: --webhook URL, --jsonl FILE or --postgres-file FILE") }
        if webhook != nil, try secretOptions.resolved()?.isEmpty ?? true {
            throw ValidationError("--webhook needs its secret, which the receiver verifies the signatures with: --secret-file FILE, "
                + "$BRACELET_WEBHOOK_SECRET or the systemd credential webhook-secret")
        }
        if webhook == nil, secretOptions.given { throw ValidationError("--secret and --secret-file only apply to --webhook") }
        if let timeout, !(timeout.isFinite && timeout >= 0.001 && timeout <= 3_600) {
            throw ValidationError("--timeout must be 0.001 to 3600 seconds, not \(timeout)")
        }
        if timeout != nil, try jsonl != nil || delivery() == nil {
            throw ValidationError("--timeout applies to a --webhook or PostgreSQL sink")
        }
        guard interval >= 1, interval <= 30 * 86_400 else { throw ValidationError("--interval must be 1 to 2592000 seconds, not \(interval)") }
        guard (1...16).contains(maxLinks) else { throw ValidationError("--max-links must be 1 to 16, not \(maxLinks)") }
        guard timeScale > 0, timeScale <= 1_000_000 else { throw ValidationError("--time-scale must be above 0") }
        guard notHeardHours > 0 else { throw ValidationError("--not-heard-hours must be above 0") }
        guard (0...100).contains(batteryLow) else { throw ValidationError("--battery-low must be 0-100") }
        guard notSendingMinutes > 0 else { throw ValidationError("--not-sending-minutes must be above 0") }
    }

    /// The sink given: an option, else a fleet database named by `$BRACELET_POSTGRES_URL` or the
    /// systemd credential `postgres-url`; `nil` when none.
    func delivery() throws -> GatewayDelivery? {
        if let webhook { return .webhook(url: webhook, secret: try secretOptions.resolved() ?? "") }
        if let jsonl { return .jsonl(path: jsonl) }
        return try postgresURL(option: postgres, file: postgresFile).map { .postgres(uri: $0.uri) }
    }

    func run() async throws {
        let delivery = try delivery()
        if let warning = secretOptions.commandLineWarning { Log.warning("gateway: " + warning) }
        // The fleet URL checked before anything starts (a password on the command line refused).
        if case .postgres = delivery { _ = try fleetServer(postgres, file: postgresFile) }
        let store = try openStore(db, mustExist: false)
        let lock: ForwarderLock?
        do { lock = delivery == nil ? nil : try ForwarderLock(databasePath: db) } catch { throw CLIError("\(error)") }
        defer { withExtendedLifetime(lock) {} }

        var settings = Gateway.Settings()
        settings.intervalSeconds = Int64(interval)
        settings.maxLinks = maxLinks
        settings.adapter = adapter
        settings.retryBaseSeconds = retryBaseSeconds
        settings.retryCapSeconds = retryCapSeconds
        settings.events.notHeardSeconds = Int64(notHeardHours * 3_600)
        settings.events.batteryLowPercent = batteryLow
        settings.events.sensorSilentSeconds = max(1, Int64(notSendingMinutes * 60))
        settings.sensorSummarySeconds = min(Int64(interval), 300)
        let origin = timeOrigin ?? Int64(Date().timeIntervalSince1970)
        settings.clock = ScaledClock(scale: timeScale, originMilliseconds: origin * 1_000, startMilliseconds: (timeStart ?? origin) * 1_000)
        let notifier = ServiceNotifier(environment: ProcessInfo.processInfo.environment)
        // The schedule turns at least twice per watchdog message, so the control thread always
        // has a fresh tick to vouch for.
        if let every = notifier.watchdogMilliseconds { settings.turnSeconds = min(settings.turnSeconds, Double(every) / 2_000) }
        let backfills = SyncProgress(options: progress)
        let gateway = Gateway(store: store, settings: settings) { event in
            if backfills.handle(event) { return }
            // What a sync allocated is freed when it ends: given back, not kept for the next burst.
            if case .syncEnded = event { releaseFreeHeap() }
            if case .nothingEnrolled(let database) = event {
                Log.warning("gateway: \(event): \(DatabaseFiller.enrolments.advice(database)); this gateway reads the enrolments every 5 s")
            } else if event.isWarning { Log.warning("gateway: \(event)") } else if case .reloaded = event { Log.debug("gateway: \(event)") } else { Log.info("gateway: \(event)") }
        }
        let server = try metrics.map { address in
            do { return try MetricsServer(address: address) { gateway.metricsExposition() } } catch { throw CLIError("\(error)") }
        }
        if let server { Log.info("gateway: metrics on \(server.url)") }

        let signals = try StopSignals.install(reload: true)
        defer { StopSignals.close(signals) }

        let enrolled = try store.enrolments().count
        Log.info("gateway: \(enrolled) enrolled bracelet(s), interval \(interval) s, up to \(maxLinks) link(s)"
                 + (delivery.map { ", delivering to \($0.description)" } ?? "; no sink given: the outbox waits for `bracelet sync`"))
        let control = Thread { Self.supervise(gateway, notifier: notifier, signals: signals) }
        control.start()

        let (gatewayClock, thresholds) = (settings.clock, settings.events)
        let deliveryTask = delivery.map { target in
            Task {
                let policy = try RetryPolicy(baseDelaySeconds: 1, maxDelaySeconds: 300)
                do {
                    // The status the fleet keeps is read at the gateway's own clock and thresholds, as its events are.
                    try await target.follow(store: store, policy: policy, pollMilliseconds: 1_000, timeoutSeconds: timeout, thresholds: thresholds,
                                            now: { gatewayClock.nowMilliseconds() }) { event in
                        switch event {
                        case .delivered(let key, _, _): Log.debug("gateway: delivered \(key)")
                        case .statusReported: Log.debug("gateway: delivery: \(event)")
                        case .waiting: break
                        default: Log.warning("gateway: delivery: \(event)")
                        }
                    }
                } catch is CancellationError {
                } catch {
                    Log.error("gateway: delivery stopped: \(error)")
                    throw error
                }
            }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                gateway.run()
                done.resume()
            }.start()
        }
        deliveryTask?.cancel()
        // A cancelled delivery stops its request or statement at once; should a sink still not
        // return, the process does not wait for it: nothing uncommitted is lost by leaving.
        if let deliveryTask, !(await StopSignals.finished(deliveryTask, withinSeconds: 3)) {
            Log.warning("gateway: the delivery did not stop within 3 s; stopping without it (it re-sends what it did not confirm)")
        }
        server?.stop()
        notifier.notify("STOPPING=1")
        Log.info("gateway: stopped by \(StopSignals.receivedName); everything committed is kept")
    }

    /// The control thread: turns signals into stop and reload requests, and tells systemd the
    /// gateway is ready, how it is doing (every 10 s), and that it is alive (at half the watchdog
    /// interval, only while the schedule keeps running). Between those it sleeps until a signal
    /// handler writes to `signals`.
    static func supervise(_ gateway: Gateway, notifier: ServiceNotifier, signals: StopSignals.Pipe) {
        notifier.notify("READY=1\nSTATUS=\(statusLine(gateway))")
        var lastStatus = ContinuousClock.now, lastWatchdog = ContinuousClock.now - .seconds(3_600)
        var lastTick = -1
        while !gateway.isStopping {
            if StopSignals.received != 0 {
                notifier.notify("STOPPING=1")
                gateway.stop()
                break
            }
            if StopSignals.takeReload() {
                Log.info("gateway: SIGHUP: reading the enrolments again")
                gateway.requestReload()
            }
            if lastStatus.duration(to: .now) >= .seconds(10) {
                lastStatus = .now
                notifier.notify("STATUS=\(statusLine(gateway))")
            }
            if let every = notifier.watchdogMilliseconds, lastWatchdog.duration(to: .now) >= .milliseconds(every) {
                let tick = gateway.tickCount
                // A schedule that stopped turning must not be kept alive by this thread.
                if tick != lastTick {
                    lastTick = tick
                    lastWatchdog = .now
                    notifier.notify("WATCHDOG=1")
                }
            }
            // Until the next status line or watchdog message is due, or a signal arrives. A tick
            // that has not moved yet is looked at again a quarter interval later, not at once.
            var next = Duration.seconds(10) - lastStatus.duration(to: .now)
            if let every = notifier.watchdogMilliseconds {
                let due = .milliseconds(every) - lastWatchdog.duration(to: .now)
                next = min(next, due > .zero ? due : .milliseconds(max(1, every / 4)))
            }
            StopSignals.wait(signals, milliseconds: Int32(max(1, next.milliseconds)))
        }
    }

    /// One line for systemd's STATUS=.
    static func statusLine(_ gateway: Gateway) -> String {
        let enrolled = gateway.enrolled
        let synced = enrolled.filter { $0.failures == 0 && $0.lastSyncAt != nil }.count
        let pending = (try? gateway.store.outboxCounts().pending).map(String.init) ?? "?"
        return "\(enrolled.count) bracelet(s), \(synced) synced, \(gateway.activeEndpoints.count) syncing, \(pending) outbox entries pending"
    }

}

/// The progress of each sync the gateway runs, one ``ProgressReporter`` per bracelet: a sync that
/// lasts longer than the progress interval (a first backfill) gets a line every few seconds with
/// its transfer and recompute; a regular sync of a second or two stays quiet. A standard sensor's
/// session has no end to show progress towards: from the moment it is known to be one until it
/// ends, nothing (its reporter would otherwise repeat its last phase every interval for hours).
final class SyncProgress: @unchecked Sendable {
    private let options: ProgressOptions
    private let lock = NSLock()
    private var reporters: [String: ProgressReporter] = [:]
    private var streaming: Set<String> = []

    init(options: ProgressOptions) { self.options = options }

    /// Takes a progress event (true: handled), and ends a bracelet's reporter when its sync ends or
    /// turns out to be a sensor's stream.
    func handle(_ event: GatewayEvent) -> Bool {
        switch event {
        case let .progress(endpoint, progress):
            let reporter = lock.withLock { () -> ProgressReporter? in
                if streaming.contains(endpoint) { return nil }
                if let kept = reporters[endpoint] { return kept }
                let made = options.reporter("gateway: \(endpoint)", immediate: false)
                reporters[endpoint] = made
                return made
            }
            reporter?.update(progress)
            return true
        case .sensorStreaming(let endpoint, _, _):
            lock.withLock { streaming.insert(endpoint); return reporters.removeValue(forKey: endpoint) }?.finish()
            return false
        case .syncEnded(let endpoint, _, _, _, _, _, _), .sensorSessionEnded(let endpoint, _, _, _, _):
            lock.withLock { streaming.remove(endpoint); return reporters.removeValue(forKey: endpoint) }?.finish()
            return false
        default:
            return false
        }
    }
}

