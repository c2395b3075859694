import BraceletDecoder
import BraceletIngest
import BraceletProtocol
import BraceletStore
import BraceletTransport
import BraceletVitality
import Foundation
import Synchronization

/// Keeps every enrolled bracelet synced, unattended: whenever one is reachable and its last sync
/// is older than the interval, it is synced (``LiveSync``: connect, secure, transfer, commit, erase,
/// recompute, disconnect), several at a time up to the link limit, each on its own thread so that a
/// slow or failing bracelet never holds up the others. A failed sync is retried after a backoff
/// that doubles per consecutive failure up to a cap (gateway clock). Enrolments are read again on
/// ``requestReload()`` (SIGHUP) and on their own every few seconds, so `gateway enroll/remove`
/// take effect while it runs. Operator events (``OperatorEvents``) go to the outbox.
///
/// The schedule does not poll: between two turns it sleeps until something it waits for happens (a
/// sync ended, a radio bracelet was heard again, a reload was requested, ``stop()``) or the next
/// time it knows of comes (the next bracelet due, the next retry, the next re-read, at the latest
/// ``Settings/turnSeconds``), so an idle gateway on a small board wakes once every few seconds.
///
/// Radio bracelets are tried only while heard advertising (management-interface discovery, on its
/// own thread); `unix:` endpoints are tried on the schedule alone (a refused connection is a
/// bracelet out of range).
///
/// A standard health sensor (a strap, an oximeter, a thermometer) has no memory: every second not
/// listened to is lost. So once a session has found an enrolment is one, it is kept subscribed for
/// as long as its link lasts (its values stored every few seconds and its days recomputed every
/// ``Settings/sensorSummarySeconds`` by ``SensorStream``), and connected again as soon as it can
/// be (radio: heard advertising) instead of at the interval: after a session that kept values at
/// once, after failed ones after ``Settings/sensorRetrySeconds`` doubling up to 30 s. At each local
/// midnight the day that ended is recomputed for every sensor (its last version says the day is
/// over), and `not_sending` fires when an enrolled sensor has sent nothing for
/// ``OperatorEvents/Thresholds/sensorSilentSeconds``. The same code serves `unix:` and radio sensors.
public final class Gateway: @unchecked Sendable {
    /// How the gateway schedules and what it watches for.
    public struct Settings: Sendable {
        /// A bracelet is synced again once its last sync is this old (seconds, gateway clock).
        public var intervalSeconds: Int64 = 900
        /// Syncs at the same time, at most.
        public var maxLinks = 3
        /// First wait after a failed sync (seconds, gateway clock); doubles per failure.
        public var retryBaseSeconds: Int64 = 60
        /// Longest wait after failed syncs (seconds, gateway clock).
        public var retryCapSeconds: Int64 = 3_600
        /// Operator-event thresholds.
        public var events = OperatorEvents.Thresholds()
        /// How often enrolments are read again without a SIGHUP (real seconds).
        public var reloadSeconds: Double = 5
        /// How often ``GatewayEvent/nothingEnrolled(database:)`` is said again while no bracelet is
        /// enrolled (real seconds; the first time is at the first read of the enrolments).
        public var emptyReminderSeconds: Double = 600
        /// The longest the schedule sleeps between two turns (real seconds), so that a watchdog
        /// sees ``Gateway/tickCount`` move at least this often.
        public var turnSeconds: Double = 5
        /// The gateway's time (scaled for tests).
        public var clock = ScaledClock.wall
        /// The adapter for radio bracelets (default: the first).
        public var adapter: String?
        /// How long a radio bracelet counts as in range after it was last heard (real seconds).
        public var heardWindowSeconds: Double = 30
        /// How often a standard sensor's today is recomputed while it streams (seconds, gateway clock).
        public var sensorSummarySeconds: Int64 = 300
        /// First wait before a sensor is connected again after a session that kept nothing
        /// (seconds, gateway clock); doubles per failure up to 30 s.
        public var sensorRetrySeconds: Int64 = 2

        /// The defaults.
        public init() {}
    }

    /// The database with the enrolments, samples, summaries and outbox.
    public let store: Store
    /// The settings.
    public let settings: Settings
    /// Counters for `--metrics`.
    public let metrics = GatewayMetrics()
    private let onEvent: @Sendable (GatewayEvent) -> Void
    private let events: OperatorEvents

    // Guarded by `lock`; its condition is signalled whenever `wakeRequested` is set or stop is asked.
    private let lock = NSCondition()
    private var wakeRequested = false
    private var enrolments: [GatewayEnrolment] = []
    private var active: Set<String> = []
    private var retryAt: [String: Int64] = [:]
    private var pipelines: [String: IngestPipeline] = [:]
    private var heard: [String: (at: ContinuousClock.Instant, addressType: LEAddressType)] = [:]
    /// Per sensor enrolment, the local day (days since 1970 in its zone) last seen by ``endSensorDays()``.
    private var sensorDays: [String: Int] = [:]
    private var reloadRequested = true
    private var agent: PairingAgent?
    /// Held while a bracelet's link is set up and secured (``RadioLink``).
    private let linkSetUp = NSLock()
    private let stopping = Atomic<Bool>(false)
    private let running = DispatchGroup()
    private let ticks = Atomic<Int>(0)
    /// When ``GatewayEvent/nothingEnrolled(database:)`` was last said; `nil` while bracelets are
    /// enrolled. Only the schedule's thread uses it.
    private var lastEmptyReminder: ContinuousClock.Instant?

    /// A gateway over `store`; `onEvent` sees what it does, from its threads.
    public init(store: Store, settings: Settings, onEvent: @escaping @Sendable (GatewayEvent) -> Void = { _ in }) {
        self.store = store
        self.settings = settings
        self.onEvent = onEvent
        events = OperatorEvents(store: store, thresholds: settings.events, clock: settings.clock)
    }

    /// Reads the enrolments again at once (SIGHUP).
    public func requestReload() {
        lock.withLock {
            reloadRequested = true
            wakeScheduleLocked()
        }
    }

    /// Asks the gateway to stop: no new sync starts, running ones stop at their next safe point.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        lock.withLock { lock.broadcast() }
    }

    /// Whether ``stop()`` was called.
    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// How many times the schedule has turned (at least once per ``Settings/turnSeconds`` while
    /// alive, and whenever something it waits for happens): a watchdog sees it move.
    public var tickCount: Int { ticks.load(ordering: .relaxed) }

    /// Endpoints being synced now.
    public var activeEndpoints: Set<String> { lock.withLock { active } }

    /// The enrolments as last read.
    public var enrolled: [GatewayEnrolment] { lock.withLock { enrolments } }

    /// Runs the schedule on the calling thread until ``stop()``, then waits for running syncs to
    /// reach their safe point. Radio discovery runs on its own thread while radio bracelets are enrolled.
    public func run() {
        let reloadEvery = Duration.milliseconds(Int(settings.reloadSeconds * 1_000))
        var lastReload = ContinuousClock.now - .seconds(3_600)
        var discovery: Thread?
        while !isStopping {
            let due = lock.withLock { reloadRequested } || lastReload.duration(to: .now) >= reloadEvery
            if due {
                lastReload = .now
                reload()
                events.checkNotHeard(enrolled, onEvent: note)
                events.checkNotSending(enrolled, onEvent: note)
                endSensorDays()
            }
            if discovery == nil, enrolled.contains(where: { $0.endpoint.hasPrefix("ble:") }) {
                discovery = Thread { [self] in discover() }
                discovery?.start()
            }
            let nextDue = startDueSyncs()
            ticks.add(1, ordering: .relaxed)
            var seconds = min(settings.turnSeconds, (reloadEvery - lastReload.duration(to: .now)).inSeconds)
            if let nextDue {
                let gatewayMilliseconds = max(0, nextDue - settings.clock.nowMilliseconds())
                seconds = min(seconds, Double(settings.clock.realMilliseconds(gatewayMilliseconds)) / 1_000)
            }
            waitForWork(seconds: seconds)
        }
        running.wait()
    }

    /// Sleeps until ``wakeScheduleLocked()``, ``stop()`` or `seconds` (at least a millisecond, so that a
    /// time due now is not waited for in a tight loop when the clock reads it a little early).
    private func waitForWork(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: max(0.001, seconds))
        lock.withLock {
            while !wakeRequested, !isStopping, lock.wait(until: deadline) {}
            wakeRequested = false
        }
    }

    /// Turns the schedule at once (something it waits for happened). Call it holding `lock`.
    private func wakeScheduleLocked() {
        wakeRequested = true
        lock.broadcast()
    }

    private func reload() {
        do {
            let fresh = try store.enrolments()
            lock.withLock {
                reloadRequested = false
                // A sync running now updates its own copy when it ends; the stored row is as new.
                enrolments = fresh
                let kept = Set(fresh.map(\.endpoint))
                pipelines = pipelines.filter { kept.contains($0.key) }
            }
            onEvent(.reloaded(enrolments: fresh.count))
            remindWhenEmpty(enrolled: fresh.count)
        } catch {
            lock.withLock { reloadRequested = false }
            onEvent(.problem("cannot read the enrolments: \(error)"))
        }
    }

    /// Says ``GatewayEvent/nothingEnrolled(database:)`` when nothing is enrolled and it was not
    /// said within ``Settings/emptyReminderSeconds`` (called from the schedule's thread only).
    private func remindWhenEmpty(enrolled: Int) {
        guard enrolled == 0 else {
            lastEmptyReminder = nil
            return
        }
        if let last = lastEmptyReminder, last.duration(to: .now) < .milliseconds(Int(settings.emptyReminderSeconds * 1_000)) { return }
        lastEmptyReminder = .now
        onEvent(.nothingEnrolled(database: store.path))
    }

    /// Starts the syncs due now, up to the link limit; returns the gateway time (ms) at which the next
    /// bracelet not being synced becomes due by its interval or retry, if any. What is due but waits for
    /// something else (a free link, a radio bracelet heard) is started when that happens: it wakes the schedule.
    private func startDueSyncs() -> Int64? {
        let now = settings.clock.nowMilliseconds()
        let (chosen, nextDue): ([GatewayEnrolment], Int64?) = lock.withLock {
            var picked: [GatewayEnrolment] = []
            var next: Int64?
            // Longest-waiting first, so a link limit below the number of bracelets serves them in turn.
            for e in enrolments.sorted(by: { ($0.lastSyncAt ?? Int64.min) < ($1.lastSyncAt ?? Int64.min) }) {
                guard !active.contains(e.endpoint) else { continue }
                // A sensor is due as soon as its retry wait is over: it has no memory to sync later.
                let intervalDue = e.sensor != nil ? Int64.min : e.lastSyncAt.map { $0 + settings.intervalSeconds * 1_000 } ?? Int64.min
                let dueAt = max(retryAt[e.endpoint] ?? Int64.min, intervalDue)
                if dueAt > now {
                    next = min(next ?? dueAt, dueAt)
                    continue
                }
                guard active.count < settings.maxLinks else { continue }
                if e.endpoint.hasPrefix("ble:") {
                    guard let seen = heard[e.endpoint], seen.at.duration(to: .now) <= .milliseconds(Int(settings.heardWindowSeconds * 1_000)) else { continue }
                }
                active.insert(e.endpoint)
                picked.append(e)
            }
            return (picked, next)
        }
        for enrolment in chosen {
            running.enter()
            let thread = Thread { [self] in
                defer { running.leave() }
                sync(enrolment)
            }
            thread.start()
        }
        return nextDue
    }

    /// One sync of `enrolment` on the calling thread, and its bookkeeping.
    private func sync(_ enrolment: GatewayEnrolment) {
        let endpoint = enrolment.endpoint
        let started = ContinuousClock.now
        onEvent(.syncStarted(endpoint: endpoint))
        try? store.setEnrolmentState(endpoint: endpoint, state: "syncing")
        var attempt = GatewayAttempt(at: 0, completed: false, heard: false)
        var outcome: LiveSync.Outcome?
        var zone = TimeZone.current
        var stateReadAt: Int64?
        var serialRead: String?
        var settingsMoved = false
        var isSensor = enrolment.sensor != nil
        var sensorKept: Int?
        do {
            let device = try DeviceSettings(enrolment: enrolment)
            zone = device.timeZone(serial: enrolment.serial, store: store)
            let pipeline = pipeline(for: enrolment)
            let (connector, release) = try connector(for: enrolment)
            defer { release() }
            var configuration = SessionConfiguration()
            let clock = settings.clock
            configuration.now = { clock.nowSeconds() }
            let nowSeconds = clock.nowSeconds()
            configuration.timeZoneOffsetMinutes = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(nowSeconds))) / 60
            let offset = configuration.timeZoneOffsetMinutes
            configuration.readDeviceState = true
            configuration.liveHeartRate = false
            configuration.maximumReconnects = 3
            configuration.initialBackoff = .milliseconds(500)
            configuration.maximumBackoff = .seconds(4)
            configuration.shouldStop = { [self] in isStopping }
            configuration.nowMilliseconds = { clock.nowMilliseconds() }
            // A standard sensor stays subscribed until its link drops or the gateway stops.
            configuration.sensorListenDuration = .seconds(100 * 365 * 86_400)
            var stream = SensorStream.Settings()
            stream.recomputeSeconds = settings.sensorSummarySeconds
            var connections = 0
            let result = LiveSync.run(connector: connector, sink: pipeline, configuration: configuration, sensor: stream, onEvent: { [self] event in
                if case .connected = event { connections += 1 }
                // A sensor's identity is its serial, or its address: its record gets the enrolled
                // settings before its first values are stored, as a bracelet's does.
                if case .standardSensor(let info) = event {
                    onEvent(.sensorStreaming(endpoint: endpoint, device: info.identity(address: connector.label), sensor: info))
                }
                if case .standardSensor(let info) = event, !settingsMoved {
                    let identity = info.identity(address: connector.label)
                    serialRead = identity
                    do {
                        try device.apply(serial: identity, endpoint: endpoint, store: store)
                        settingsMoved = true
                    } catch {
                        onEvent(.problem("\(endpoint): cannot write the enrolled settings into the participant record of \(identity): \(error)"))
                    }
                }
                // A reconnect reads the serial again; the enrolled settings were moved into the record
                // at the first reading, and writing them again would undo a `person set` made since.
                if case .device(_, let serial, _) = event, !settingsMoved {
                    serialRead = serial.isEmpty ? nil : serial
                    do {
                        try device.apply(serial: serial, endpoint: endpoint, store: store)
                        settingsMoved = serialRead != nil
                    } catch {
                        onEvent(.problem("\(endpoint): cannot write the enrolled settings into the participant record of \(serial): \(error)"))
                    }
                }
                // The first reading of a session is the clock as the bracelet kept it (a reconnect
                // reads it again after set time); it is compared with the gateway's at that moment.
                if case .deviceState(let state) = event, stateReadAt == nil {
                    let readAt = clock.nowMilliseconds()
                    stateReadAt = readAt
                    var known = enrolment
                    known.serial = serialRead ?? enrolment.serial
                    events.deviceRead(known, previousOffsetMinutes: enrolment.offsetMinutes, state: state, readAt: readAt, zone: zone,
                                      onEvent: note)
                    // Set time follows at once: the offset it sets is recorded first (see setEnrolmentOffset).
                    do { try store.setEnrolmentOffset(endpoint: endpoint, minutes: offset) } catch {
                        onEvent(.problem("\(endpoint): cannot record the clock offset: \(error)"))
                    }
                }
            }, onProgress: { [onEvent] progress in onEvent(.progress(endpoint: endpoint, progress)) }, onSensorProgress: { [self] progress in
                kept(progress, endpoint: endpoint)
            })
            outcome = result
            attempt.heard = connections > 0
            attempt.completed = result.completed
            attempt.serial = result.report?.serial
            if let progress = result.sensorProgress {
                // A sensor's session ends when its link does: one that kept values did its work.
                sensorKept = progress.totalStored
                attempt.completed = progress.totalStored > 0 && result.sensorError == nil
            }
            attempt.battery = result.deviceState?.batteryPercent
            attempt.wearing = result.deviceState?.wearing
            attempt.backlogBytes = result.backlogBytes
            // Only a session that got as far as reading the clock went on to set it.
            if stateReadAt != nil { attempt.offsetMinutes = offset }
            attempt.error = result.sensorError ?? result.error.map { "\($0)" } ?? result.recomputeError
            if attempt.error == nil, !attempt.completed {
                attempt.error = result.report?.sensor == nil ? "stopped before the end of the sync" : "kept no values before the session ended"
            }
            if result.report?.sensor != nil, attempt.completed { attempt.error = nil }
            isSensor = result.report?.sensor != nil
            for warning in result.eraseRecordErrors { onEvent(.problem("\(endpoint): \(warning)")) }
        } catch {
            attempt.error = "\(error)"
        }
        attempt.at = settings.clock.nowMilliseconds()
        let bytes = outcome?.report?.bytesReceived ?? 0
        metrics.recordSync(completed: attempt.completed, bytes: bytes)
        do { try store.recordAttempt(endpoint: endpoint, attempt) } catch {
            onEvent(.problem("\(endpoint): cannot record the sync in the database: \(error)"))
        }
        let updated: GatewayEnrolment? = lock.withLock {
            active.remove(endpoint)
            // A link is free and this bracelet's next due time changed.
            wakeScheduleLocked()
            guard let index = enrolments.firstIndex(where: { $0.endpoint == endpoint }) else { return nil }
            var e = enrolments[index]
            e.lastAttemptAt = attempt.at
            if attempt.completed { e.lastSyncAt = attempt.at; e.failures = 0 } else { e.failures += 1 }
            if attempt.heard { e.lastHeardAt = attempt.at }
            if isSensor, e.sensor == nil { e.sensor = outcome?.report?.sensor.map { $0.profiles.map(\.rawValue).joined(separator: "+") } }
            e.offsetMinutes = attempt.offsetMinutes ?? e.offsetMinutes
            e.serial = attempt.serial.flatMap { $0.isEmpty ? nil : $0 } ?? e.serial
            // The stored enrolment no longer holds them (DeviceSettings.apply); neither does this copy.
            if settingsMoved { e.settings = [:]; e.user = nil }
            if isSensor {
                // Connected again at once after a session that kept values, soon after one that did not.
                let wait = attempt.completed ? 0 : min(settings.sensorRetrySeconds << Int64(min(e.failures - 1, 10)), 30)
                retryAt[endpoint] = attempt.at + wait * 1_000
            } else if !attempt.completed {
                let shift = min(e.failures - 1, 20)
                let wait = min(settings.retryBaseSeconds << Int64(shift), settings.retryCapSeconds)
                retryAt[endpoint] = attempt.at + wait * 1_000
            } else {
                retryAt[endpoint] = nil
            }
            enrolments[index] = e
            return e
        }
        if let sensorKept {
            onEvent(.sensorSessionEnded(endpoint: endpoint, serial: attempt.serial, samples: sensorKept, error: attempt.error,
                                        seconds: started.duration(to: .now).inSeconds))
        } else {
            onEvent(.syncEnded(endpoint: endpoint, serial: attempt.serial, files: outcome?.report?.committed.count ?? 0, bytes: bytes,
                               completed: attempt.completed, error: attempt.error, seconds: started.duration(to: .now).inSeconds))
        }
        guard let updated else { return }
        if !attempt.completed, !isSensor, let next = lock.withLock({ retryAt[endpoint] }) {
            onEvent(.backingOff(endpoint: endpoint, failures: updated.failures, retryInSeconds: (next - attempt.at) / 1_000))
        }
        // A sensor's failures are its absences, which not_sending reports; not_worn follows its rows.
        events.afterSync(updated, zone: zone, completed: attempt.completed, failuresCount: !isSensor, onEvent: note)
    }

    /// Records what a sensor's stream kept (``SensorStream``): in the enrolment row (status), in
    /// this process's copy (the schedule), in the metrics.
    private func kept(_ progress: SensorStream.Progress, endpoint: String) {
        let profiles = progress.sensor.profiles.map(\.rawValue).joined(separator: "+")
        do {
            try store.recordSensorProgress(endpoint: endpoint, stored: progress.samplesStored, lastSampleAt: progress.lastSampleMs,
                                           battery: progress.battery, serial: progress.device, sensor: profiles)
        } catch {
            onEvent(.problem("\(endpoint): cannot record what its stream kept: \(error)"))
        }
        metrics.recordSensorSamples(progress.samplesStored)
        lock.withLock {
            guard let index = enrolments.firstIndex(where: { $0.endpoint == endpoint }) else { return }
            enrolments[index].sensor = profiles
            enrolments[index].serial = progress.device
            enrolments[index].samplesKept += progress.samplesStored
            enrolments[index].lastSampleAt = progress.lastSampleMs ?? enrolments[index].lastSampleAt
            enrolments[index].lastHeardAt = progress.lastSampleMs ?? enrolments[index].lastHeardAt
            enrolments[index].battery = progress.battery ?? enrolments[index].battery
        }
    }

    /// Recomputes, for every enrolled sensor whose local day changed since the last look, the day
    /// that ended: its last version then says the day is over, also for a sensor out of range at
    /// midnight (a streaming one recomputes it itself at its first value of the new day). The
    /// recomputes run on a thread of their own: a day of a sensor's seconds takes seconds, which the
    /// schedule (and a watchdog) must not wait for.
    private func endSensorDays() {
        let now = settings.clock.nowMilliseconds() / 1_000
        var ended: [(enrolment: GatewayEnrolment, serial: String, date: String)] = []
        for e in enrolled where e.sensor != nil {
            guard let serial = e.serial, let device = try? DeviceSettings(enrolment: e) else { continue }
            let today = OperatorEvents.localDate(now, zone: device.timeZone(serial: serial, store: store))
            let seen = lock.withLock { () -> Int? in
                defer { sensorDays[e.endpoint] = today.dayNumber }
                return sensorDays[e.endpoint]
            }
            guard let seen, seen < today.dayNumber else { continue }
            ended.append((e, serial, LocalDate(dayNumber: today.dayNumber - 1).description))
        }
        guard !ended.isEmpty else { return }
        running.enter()
        Thread { [self, ended] in
            defer { running.leave() }
            for (e, serial, date) in ended {
                do {
                    try store.markForRecompute(device: serial, dates: [date])
                    _ = try pipeline(for: e).recomputePending(device: serial)
                } catch {
                    onEvent(.problem("\(e.endpoint): cannot recompute \(date) of \(serial) (it stays pending): \(error)"))
                }
            }
        }.start()
    }

    /// The ingest pipeline of an enrolment, kept while it stays enrolled: each day is computed with
    /// the bracelet's participant record (a bracelet whose record has no zone gets this machine's).
    private func pipeline(for enrolment: GatewayEnrolment) -> IngestPipeline {
        lock.withLock {
            if let kept = pipelines[enrolment.endpoint] { return kept }
            let endpoint = enrolment.endpoint
            let made = IngestPipeline(store: store, given: ParticipantProfile(), defaultTimeZone: .current,
                                      onProgress: { [onEvent] progress in onEvent(.progress(endpoint: endpoint, progress)) })
            pipelines[enrolment.endpoint] = made
            return made
        }
    }

    /// Counts and reports an operator event.
    private func note(_ event: GatewayEvent) {
        if case let .operatorEvent(device, name, _) = event { metrics.recordOperatorEvent(name: name, device: device) }
        onEvent(event)
    }

    /// The connector for an enrolment: a Unix socket, or L2CAP secured as the bracelet requires;
    /// and what to do once the sync is over (end a bracelet's link at once: see ``RadioLink``).
    private func connector(for enrolment: GatewayEnrolment) throws -> (BraceletConnector, release: () -> Void) {
        switch try GatewayEndpoint(enrolment.endpoint) {
        case .unix(let path):
            return (UnixSocketConnector(path: path), {})
        case .radio(let address):
            let seen = lock.withLock { heard[enrolment.endpoint] }
            let type: LEAddressType = enrolment.addressType.map { $0 == "public" ? .public : .random } ?? seen?.addressType ?? .random
            let base = L2CAPConnector(address: address, addressType: type, adapter: settings.adapter,
                                      shouldStop: { [self] in isStopping })
            let agent = try pairingAgent()
            agent.setPasskey(UInt32(enrolment.passkey ?? Int(BraceletSecurity.defaultPasskey)), for: address)
            // The link the enrolment requires, never what an advertisement says (see RadioLink).
            let endpoint = enrolment.endpoint
            let link = RadioLink(base: base, required: enrolment.linkSecurity, agent: agent, setUp: linkSetUp, onLearned: { [self] level in
                do {
                    if try store.raiseEnrolledLinkSecurity(endpoint: endpoint, to: level) { onEvent(.linkSecurityLearned(endpoint: endpoint, level: level)) }
                } catch {
                    onEvent(.problem("\(endpoint): cannot keep the link security it needs (\(level.rawValue)) in the enrolment: \(error)"))
                }
            }, onRefused: { [self] required, refusal in
                events.linkRefused(enrolment, required: required, refusal: refusal, onEvent: note)
            })
            return (link, { link.release() })
        }
    }

    /// The adapter's one pairing agent, shared by every link (made at the first secured connect):
    /// the kernel hands each passkey request to every management socket and takes the first
    /// answer, so an agent per link would answer other bracelets' requests with its own passkey.
    private func pairingAgent() throws -> PairingAgent {
        try lock.withLock {
            if let agent { return agent }
            let made = try PairingAgent(settings: .init(adapter: settings.adapter, ioCapability: .noInputNoOutput,
                                                        passkey: BraceletSecurity.defaultPasskey, bondable: true))
            agent = made
            return made
        }
    }

    /// Listens for advertisements (management-interface discovery, as `scan` does) and records when
    /// each enrolled radio bracelet was last heard, until the gateway stops.
    private func discover() {
        let scanner = LEScanner(adapter: settings.adapter, shouldStop: { [self] in isStopping })
        while !isStopping {
            let wanted = Set(enrolled.map(\.endpoint).filter { $0.hasPrefix("ble:") })
            do {
                _ = try scanner.scan(seconds: 10, untilReport: { [self] report in
                    let key = "ble:\(report.address)"
                    guard wanted.contains(key) else { return false }
                    let isNew = lock.withLock {
                        let fresh = heard[key].map { $0.at.duration(to: .now) > .milliseconds(Int(settings.heardWindowSeconds * 1_000)) } ?? true
                        heard[key] = (.now, report.addressType)
                        if fresh { wakeScheduleLocked() }
                        return fresh
                    }
                    if isNew {
                        onEvent(.heard(endpoint: key))
                        try? store.setEnrolmentState(endpoint: key, state: "heard", heardAt: settings.clock.nowMilliseconds())
                    }
                    return false
                })
            } catch {
                onEvent(.problem("discovery on \(settings.adapter ?? "the first adapter") failed: \(error); trying again in 10 s"))
                for _ in 0..<100 where !isStopping { Thread.sleep(forTimeInterval: 0.1) }
            }
        }
    }
}
