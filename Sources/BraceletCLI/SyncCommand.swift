import ArgumentParser
import BraceletDecoder
import BraceletExport
import BraceletStore
import BraceletSummaries
import BraceletSync
import BraceletVitality
import Foundation

/// `bracelet sync`: forwards the outbox to a webhook or a JSON Lines file, shows its status, and
/// manages it (requeue dead letters, resend a date range, assign a device to a participant).
struct SyncCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Deliver changed summaries from the database's outbox to a webhook or a JSON Lines file.",
        discussion: """
            Entries are delivered in order per bracelet, at least once. A transient failure (no \
            connection, DNS, timeout, HTTP 408, 429, 5xx, full disk) is never given up: it backs off \
            from --base-delay doubling to --max-delay and keeps trying. A configuration failure \
            (HTTP 401, 403, 404, 405, 407, a redirect, which is never followed, a refused TLS \
            certificate, an unwritable file) pauses the sink and says what to fix; no \
            entry is charged with it. Only a receiver's refusal of one entry (another 4xx) makes a \
            dead letter, kept with the answer; --requeue-dead puts it back. Killing the command at any \
            moment loses nothing: the next run re-sends what was not confirmed, with the same \
            Idempotency-Key, so receivers dedupe by key.

            Without --once or --follow, sync delivers until nothing is pending, however long an \
            outage lasts. --once makes one pass and exits.

            Exit status: 0 nothing left pending; 3 new dead letters; 75 (--once) entries still \
            pending after transient failures; 78 the sink is paused by a configuration failure; 64 an \
            option is wrong (such as a --kinds that names no kind).

            Examples:
              bracelet sync --db bracelet.db --webhook https://example.org/in \\
                --secret-file /etc/bracelet/webhook-secret --once
              bracelet sync --db bracelet.db --jsonl summaries.jsonl --follow \\
                --kinds daily,sleep
              bracelet sync --db bracelet.db \\
                --postgres "postgresql://gw@db.example.org/fleet?sslmode=verify-full"
              bracelet sync --db bracelet.db --status --format json
              bracelet sync --db bracelet.db --requeue-dead --from 2024-03-01 \\
                --to 2024-03-07
              bracelet sync --db bracelet.db --resend --from 2024-03-01 --to 2024-03-07
              bracelet sync --db bracelet.db --set-user P-0042 --device SN12345
            """
    )

    @Option(name: .long, help: ArgumentHelp("The bracelet database.", valueName: "path"))
    var db: String

    @Option(name: .long, help: ArgumentHelp("POST each entry to this http(s) URL.", valueName: "url"))
    var webhook: String?

    @OptionGroup var secretOptions: WebhookSecretOptions

    @Option(name: .long, help: ArgumentHelp("Append each entry as one line to this file (fsynced).", valueName: "file"))
    var jsonl: String?

    @Option(name: .long, help: ArgumentHelp(
        "Webhook body encoding: gzip (Content-Encoding: gzip; the signature covers the JSON inside; a receiver answering 415 gets identity from then on) or identity.",
        valueName: "encoding"))
    var webhookEncoding: WebhookEncoding = .gzip

    @Flag(name: .long, help: "With --jsonl: append each line as a gzip member (the file reads with zcat).")
    var jsonlGzip = false

    @Option(name: .long, help: ArgumentHelp(
        "Upsert entries into this PostgreSQL fleet database, in batches (default: $BRACELET_POSTGRES_URL or the systemd credential postgres-url, unless --webhook or --jsonl is given).", valueName: "url"))
    var postgres: String?

    @Option(name: .long, help: ArgumentHelp("Read the --postgres URL from this file (mode 0600 or stricter).", valueName: "path"))
    var postgresFile: String?

    @Option(name: .long, help: ArgumentHelp(
        "Deliver only these kinds (comma-separated: daily, sleep, event:NAME; e.g. daily,sleep); other entries stay pending for another sink. An unknown kind is refused (exit 64).",
        valueName: "kinds"))
    var kinds: String?

    @Flag(name: .long, help: "One pass: try each due entry once, leave failures pending, exit (75 when some are pending).")
    var once = false

    @Flag(name: .long, help: "Keep running and deliver new entries as they appear, until SIGTERM or SIGINT (which end it within 3 s, exit 0).")
    var follow = false

    @Option(name: .long, help: .hidden)
    var maxAttempts: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Deliver each entry in this standard format instead of bracelet's own JSON.", valueName: "format"))
    var payload: PayloadFormat?

    @Option(name: .long, help: ArgumentHelp(
        "With --payload: the time zone of the local times, for this run (default: each device's participant record's).",
        valueName: "zone"), transform: parseTimeZoneOption)
    var tz: TimeZone?

    @Option(name: .long, help: ArgumentHelp("Backoff after the first failure, seconds (0.001 to 86400).", valueName: "seconds"))
    var baseDelay = 1.0

    @Option(name: .long, help: ArgumentHelp("Longest backoff, seconds (up to 86400).", valueName: "seconds"))
    var maxDelay = 300.0

    @Option(name: .long, help: ArgumentHelp(
        "How long the sink may keep a delivery waiting, seconds: a webhook request from connecting to its answer (0.001 to 3600, default 10), a PostgreSQL statement (its statement_timeout, 1 to 3600, default 30; connecting has the URL's connect_timeout, default 10).",
        valueName: "seconds"))
    var timeout: Double?

    @Option(name: .long, help: ArgumentHelp("With --follow: how often to look for new entries, seconds (0.001 to 86400).",
                                            valueName: "seconds"))
    var poll = 2.0

    @Flag(name: .long, help: "Print the counts, oldest pending entry, last success and failure, and the dead letters.")
    var status = false

    @Option(name: .long, help: "Output format of --status: json or table.")
    var format: StatusFormat = .table

    @Flag(name: .long, help: "Put dead letters back to pending (all, or those of --key / --from..--to).")
    var requeueDead = false

    @Option(name: .long, help: ArgumentHelp("With --requeue-dead: only this entry key (repeatable).", valueName: "key"))
    var key: [String] = []

    @Flag(name: .long, help: "Send delivered entries of --from..--to (and --kinds) again, same keys and bytes.")
    var resend = false

    @Option(name: .long, help: ArgumentHelp("First local date for --requeue-dead / --resend.", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("Last local date for --requeue-dead / --resend (default: --from).", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp(
        "Assign --device to this study participant id (the participant record's user id, as person set --user sets it): every later delivery and re-send carries it.",
        valueName: "id"))
    var setUser: String?

    @Option(name: .long, help: ArgumentHelp("The bracelet serial for --set-user.", valueName: "serial"))
    var device: String?

    @OptionGroup var userPolicy: UserIDPolicyOptions

    @OptionGroup var log: LogOptions


    enum StatusFormat: String, ExpressibleByArgument, CaseIterable {
        case json, table
    }


    /// The kind filter of `--kinds`.
    var filter: OutboxKindFilter {
        OutboxKindFilter(kinds: kinds.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
    }

    var managing: Bool { requeueDead || resend || setUser != nil }

    func validate() throws {
        if maxAttempts != nil {
            throw ValidationError("--max-attempts is gone: a transient failure is retried until it succeeds, never made a dead letter. "
                + "Use --once for a single pass, --max-delay to cap the backoff.")
        }
        if once && follow { throw ValidationError("--once and --follow exclude each other: pick one.") }
        if let kinds = filter.kinds {
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:-")
            if kinds.isEmpty || kinds.contains(where: { $0.isEmpty || !$0.allSatisfy(allowed.contains) }) {
                throw ValidationError("--kinds \(self.kinds ?? "") is not a comma-separated list of kinds: use e.g. --kinds daily,sleep.")
            }
        }
        if (setUser == nil) != (device == nil) { throw ValidationError("--set-user ID and --device SERIAL go together.") }
        try userPolicy.check(setUser, option: "--set-user")
        if resend && from == nil { throw ValidationError("--resend needs --from YYYY-MM-DD (and --to, default the same day).") }
        if (from != nil || to != nil || !key.isEmpty) && !requeueDead && !resend {
            throw ValidationError("--key, --from and --to select entries for --requeue-dead or --resend.")
        }
        if !key.isEmpty && resend { throw ValidationError("--resend selects by --from/--to, not --key.") }
        if status {
            if webhook != nil || jsonl != nil || managing {
                throw ValidationError("--status only reads the outbox; drop --webhook / --jsonl and the other actions.")
            }
            return
        }
        let postgresURL = try chosenPostgresURL()
        if postgresURL != nil && (webhook != nil || jsonl != nil || payload != nil || secretOptions.given) {
            throw ValidationError("--postgres stands alone: drop --webhook / --jsonl / --payload / --secret (run sync once per sink).")
        }
        switch (webhook, jsonl) {
        case (nil, nil):
            if !managing && postgresURL == nil {
                throw ValidationError("say where to deliver: --webhook URL (with its secret), --jsonl FILE or --postgres-file FILE (or use --status).")
            }
        case (.some, .some): throw ValidationError("--webhook and --jsonl exclude each other: run sync once per sink.")
        case (.some, nil):
            if try secretOptions.resolved()?.isEmpty ?? true {
                throw ValidationError("--webhook needs its secret, which the receiver verifies the signatures with: --secret-file FILE, "
                    + "$BRACELET_WEBHOOK_SECRET or the systemd credential webhook-secret.")
            }
            if jsonlGzip { throw ValidationError("--jsonl-gzip only applies to --jsonl.") }
        case (nil, .some):
            if secretOptions.given { throw ValidationError("--secret and --secret-file only apply to --webhook.") }
            if webhookEncoding != .gzip { throw ValidationError("--webhook-encoding only applies to --webhook.") }
            if timeout != nil { throw ValidationError("--timeout applies to --webhook and --postgres, not to --jsonl.") }
        }
        do {
            _ = try RetryPolicy(baseDelaySeconds: baseDelay, maxDelaySeconds: maxDelay)
            if let timeout { _ = try SyncDuration.milliseconds(timeout, option: "--timeout", upTo: WebhookSink.longestTimeoutSeconds) }
            _ = try SyncDuration.milliseconds(poll, option: "--poll", upTo: Double(RetryPolicy.longestDelayMilliseconds) / 1000)
        } catch let error as SyncError {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        // The URL's one check (a password on the command line refused), before the outbox is touched.
        if postgres != nil { _ = try fleetServer(postgres, file: postgresFile) }
        guard try databaseExists(db) else {
            throw ValidationError("no database at \(db) (check the path): \(DatabaseFiller.deviceData.advice(db))")
        }
        let store = try Store(path: db)
        // What a delivery reads is checked before anything is sent: the file's structure and the
        // payloads still to be delivered (again once --requeue-dead/--resend made more of them pending).
        do {
            if let outside = try store.requireIntactForDelivery() { logOutsideWrites(outside, path: db) }
        } catch { throw CLIError("\(error)") }
        try refuseUnknownKinds(store)
        if status {
            try SyncStatusPrinter(store: store, filter: filter, json: format == .json).print()
            if try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 0, dead: 0) {
                Log.info("note: the outbox of \(db) is empty: storing a bracelet's data queues its summaries (\(DatabaseFiller.deviceData.advice(db)))")
            }
            return
        }
        // Before anything changes states or is sent: a damaged outbox could send one entry in a loop.
        try store.checkOutboxIntegrity()
        try manage(store)
        if requeueDead || resend { do { try store.requireIntactForDelivery() } catch { throw CLIError("\(error)") } }
        if try chosenPostgresURL() != nil { return try await deliverToPostgres(store: store) }
        if webhook == nil && jsonl == nil { return }
        if let note = postgresEnvironmentNote { Log.info(note) }
        let lock = try ForwarderLock(databasePath: db)
        defer { withExtendedLifetime(lock) {} }
        var sink: any OutboxSink
        if let webhook {
            if let warning = secretOptions.commandLineWarning { Log.warning("sync: " + warning) }
            sink = try WebhookSink(url: webhook, secret: try secretOptions.resolved() ?? "", timeoutSeconds: timeout ?? 10,
                                   encoding: webhookEncoding)
        } else {
            sink = try JSONLinesSink(path: jsonl ?? "", gzip: jsonlGzip)
        }
        if let payload {
            // Each entry's local times carry the offset of its device's zone on its date, from the
            // participant records (read once: a record changed while sync runs applies to the next run).
            let records = try participantCall(db) {
                try Dictionary(uniqueKeysWithValues: store.devices().map { ($0.serial, try ParticipantRecord.load(device: $0.serial, from: store)) })
            }
            for record in records.values.sorted(by: { $0.device < $1.device }) where tz != nil {
                let overridden = try participantCall(db) { try Participants.reading(ParticipantProfile(timeZone: tz), record: record).overridden }
                for override in overridden { Log.info("sync: note: " + override.note(database: db, device: record.device)) }
            }
            do { sink = try ExportingSink(inner: sink, format: payload.exportFormat, timeZone: tz, records: records) } catch { throw CLIError("--payload: \(error)") }
        }
        let policy = try RetryPolicy(baseDelaySeconds: baseDelay, maxDelaySeconds: maxDelay)
        let forwarder = Forwarder(store: store, sink: sink, policy: policy, filter: filter, onEvent: { event in
            SyncCommand.progress(event)
        })
        let before = try store.outboxStatus(filter: filter).counts
        var taken = ""
        if let kinds = filter.kinds {
            taken = " of kinds \(kinds.joined(separator: ",")) (\(try store.outboxStatus().counts.pending) pending in all)"
        }
        Log.info("sync: \(before.pending) pending entries\(taken) -> \(sink.name)")
        if before.pending == 0 && before.delivered > 0 && !follow {
            // Said, so that an empty output is not taken for a failure: each entry goes out once per database.
            Log.info("sync: nothing to deliver: the \(before.delivered) entries of this database were delivered before "
                + "(to any sink); `--resend --from DATE --to DATE` sends them again")
        }
        if follow {
            let pollMilliseconds = try SyncDuration.milliseconds(poll, option: "--poll", upTo: 86_400)
            return try await followUntilStopped(store: store) { try await forwarder.follow(pollMilliseconds: pollMilliseconds) }
        }
        let report = once ? try await forwarder.deliverDue() : try await forwarder.drain()
        try finish(report, store: store, sink: sink)
    }

    /// `--follow`: runs `follow` until SIGTERM or SIGINT, which end it within 3 s whatever the sink
    /// is doing (a request or statement under way is stopped; its entry stays pending), then says
    /// what is pending and exits 0, closing the database as every run does.
    func followUntilStopped(store: Store, _ follow: @escaping @Sendable () async throws -> Void) async throws {
        let stopped = try await StopSignals.runUntilStopped(abandoned: {
            Log.warning("sync: the delivery did not stop within 3 s; stopping without it (it re-sends what it did not confirm)")
        }, follow)
        guard stopped else { return }
        let pending = (try? store.outboxStatus(filter: filter).counts.pending).map { "\($0) entries pending" } ?? "the outbox kept"
        Log.info("sync: stopped by \(StopSignals.receivedName); everything delivered is recorded, \(pending)")
    }

    /// `--set-user`, `--requeue-dead`, `--resend`: done before any delivery, each says what it did.
    func manage(_ store: Store) throws {
        if let setUser, let device {
            // The shorthand of `bracelet person set --user`: the participant record's user id.
            let change = try participantCall(db) { try Participants.set(ParticipantChange(user: .set(setUser)), device: device, store: store) }
            // A count the store did not report is left out, not printed as 0.
            let pending = change.pendingEntriesWithUser.map { "\($0) pending entries now carry it, and so does" } ?? "so does"
            Log.info("sync: device \(device) is assigned to user \(setUser); \(pending) every later delivery and re-send.")
        }
        if requeueDead {
            let count = try store.requeueDeadEntries(keys: key.isEmpty ? nil : key, fromDate: from, toDate: to ?? from)
            Log.info("sync: \(count) dead entries are pending again.")
        }
        if resend, let from {
            let count = try store.resendDeliveredEntries(fromDate: from, toDate: to ?? from, filter: filter)
            Log.info("sync: \(count) delivered entries of \(from)..\(to ?? from) are pending again (same keys).")
        }
    }

    /// Refuses `--kinds` naming a kind that does not exist (a typo would otherwise deliver nothing
    /// and exit 0); says so when a kind that exists has no entry yet.
    func refuseUnknownKinds(_ store: Store) throws {
        guard let wanted = filter.kinds else { return }
        let present = try store.outboxKinds()
        let unknown = filter.unknownKinds(present: present)
        guard unknown.isEmpty else {
            let kinds = Array(Set(OutboxKindFilter.knownKinds + present.map(OutboxEntry.shortKind(of:)))).sorted()
            throw CLIError("--kinds: \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")) is not a kind of outbox entry; "
                + "the kinds are \(kinds.joined(separator: ", ")) (comma-separated, e.g. --kinds daily,sleep).", exitCode: 64)
        }
        let names = Set(present + present.map(OutboxEntry.shortKind(of:)))
        for kind in wanted where !names.contains(kind) {
            Log.info("sync: no outbox entry has kind \"\(kind)\" yet.")
        }
    }

    /// The closing lines and the exit status of a `--once` or draining run.
    func finish(_ report: ForwarderReport, store: Store, sink: any OutboxSink) throws {
        let after = try store.outboxStatus(filter: filter).counts
        let whole = filter.kinds == nil ? nil : try store.outboxStatus()
        Log.info("sync: done: \(report.delivered) delivered, \(report.retried) failed attempts to retry, \(report.dead) new dead letters; "
            + Self.outboxLine(taken: after, kinds: filter.kinds, whole: whole))
        if let reason = report.pausedReason {
            Log.error("sync: PAUSED: \(sink.name) cannot take entries: \(reason). Nothing was given up: "
                + "\(after.pending) entries stay pending. Fix the setup and run sync again.")
            throw ExitCode(78)
        }
        if report.dead > 0 {
            Log.error("sync: \(report.dead) entries became dead letters; see `bracelet sync --db \(db) --status`, "
                + "then `--requeue-dead` once the receiver takes them.")
            throw ExitCode(3)
        }
        if after.pending > 0 {
            let explanation = try pendingExplanation(store, pending: after.pending)
            Log.error("sync: " + explanation)
            throw ExitCode(75)
        }
    }

    /// The outbox's state after a run. With `--kinds` the counts of the kinds taken are followed by
    /// those of every kind with the pending ones per kind, so entries left for another sink are
    /// never reported as "0 pending".
    static func outboxLine(taken: OutboxCounts, kinds: [String]?, whole: OutboxStatus?) -> String {
        let counts = "\(taken.pending) pending, \(taken.delivered) delivered, \(taken.dead) dead"
        guard let kinds, let whole else { return "outbox now \(counts)" }
        let byKind = whole.pendingByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "outbox now \(counts) of kinds \(kinds.joined(separator: ",")); all kinds: \(whole.counts.pending) pending"
            + (byKind.isEmpty ? "" : " [\(byKind)]") + ", \(whole.counts.delivered) delivered, \(whole.counts.dead) dead"
    }

    /// How many entries are pending and why: the failures of the heads of the device queues, and
    /// how many wait behind them.
    func pendingExplanation(_ store: Store, pending: Int) throws -> String {
        let heads = try store.pendingOutboxHeads(filter: filter)
        var reasons: [String: Int] = [:]
        for head in heads { reasons[head.lastError ?? "not tried yet", default: 0] += 1 }
        let listed = reasons.sorted { $0.value > $1.value }.map { "\($0.value) × \($0.key)" }.joined(separator: "; ")
        let behind = pending - heads.count
        var text = "\(pending) entries still pending (nothing given up): \(listed)"
        if behind > 0 { text += "; \(behind) wait behind those in their device's order" }
        if let next = heads.map(\.nextAttemptAt).min() {
            let seconds = max(0, Double(Forwarder.milliseconds(until: next, now: Store.systemMilliseconds())) / 1000)
            text += String(format: "; next attempt due in %.1f s. Run sync again or use --follow.", seconds)
        }
        return text
    }

    static func progress(_ event: ForwarderEvent) {
        switch event {
        case let .delivered(key, attempt, outcome):
            Log.info("sync: \(outcome) \(key) (attempt \(attempt))")
        case let .retryScheduled(key, attempt, retryAt, reason):
            let seconds = Double(Forwarder.milliseconds(until: retryAt, now: SystemClock().nowMilliseconds())) / 1000
            Log.warning("sync: attempt \(attempt) of \(key) failed: \(reason); retry in \(String(format: "%.1f", max(0, seconds))) s")
        case let .dead(key, attempt, reason):
            Log.warning("sync: DEAD \(key) after attempt \(attempt): \(reason)")
        case let .paused(sink, reason):
            Log.warning("sync: PAUSED \(sink): \(reason)")
        case let .rescheduled(count):
            Log.warning("sync: \(count) pending entries were scheduled beyond --max-delay (clock set back, or a damaged value); moved to now + --max-delay")
        case let .waiting(milliseconds, pending):
            Log.info("sync: \(pending) devices waiting; next retry in \(String(format: "%.1f", Double(milliseconds) / 1000)) s")
        case let .statusReported(devices, sinks):
            Log.info("sync: the gateway's status of \(devices) device(s) and \(sinks) sink(s) written to the fleet")
        case let .statusNotReported(reason):
            Log.warning("sync: the gateway's status was not written to the fleet (tried again at the next report): \(reason)")
        }
    }
}

/// The standard formats `sync --payload` delivers: the JSON ones (a CSV table is not a delivery body;
/// `bracelet export --format csv` writes one).
enum PayloadFormat: String, ExpressibleByArgument, CaseIterable {
    case omh, ieee1752, fhir, rook

    /// The export format of the same name.
    var exportFormat: ExportFormat {
        switch self {
        case .omh: .omh
        case .ieee1752: .ieee1752
        case .fhir: .fhir
        case .rook: .rook
        }
    }
}

extension WebhookEncoding: ExpressibleByArgument {}
