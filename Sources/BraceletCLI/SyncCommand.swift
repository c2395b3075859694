import ArgumentParser
import BraceletStore
import BraceletSync
import Foundation

/// `bracelet sync`: forwards the outbox to a webhook or a JSON Lines file, or shows its status.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Deliver changed summaries from the database's outbox to a webhook or a JSON Lines file.",
        discussion: """
            Entries are delivered in order per bracelet, at least once, with exponential backoff and \
            jitter; after --max-attempts failures an entry becomes a dead letter with its last error. \
            Killing the command at any moment loses nothing: the next run re-sends what was not \
            confirmed, with the same Idempotency-Key, so receivers dedupe by key.

            Examples:
              bracelet sync --db bracelet.db --webhook https://example.org/in --secret s3cret --once
              bracelet sync --db bracelet.db --jsonl summaries.jsonl --follow
              bracelet sync --db bracelet.db --status --format json
            """
    )

    @Option(name: .long, help: ArgumentHelp("The bracelet database.", valueName: "path"))
    var db: String

    @Option(name: .long, help: ArgumentHelp("POST each entry to this http(s) URL.", valueName: "url"))
    var webhook: String?

    @Option(name: .long, help: ArgumentHelp(
        "Shared secret for X-Bracelet-Signature (HMAC-SHA256). Defaults to $BRACELET_WEBHOOK_SECRET.", valueName: "secret"))
    var secret: String?

    @Option(name: .long, help: ArgumentHelp("Append each entry as one line to this file (fsynced).", valueName: "file"))
    var jsonl: String?

    @Flag(name: .long, help: "Deliver until nothing is pending, then exit (the default).")
    var once = false

    @Flag(name: .long, help: "Keep running and deliver new entries as they appear.")
    var follow = false

    @Option(name: .long, help: "Failed attempts before an entry becomes a dead letter.")
    var maxAttempts = 8

    @Option(name: .long, help: ArgumentHelp("Backoff after the first failure, seconds.", valueName: "seconds"))
    var baseDelay = 1.0

    @Option(name: .long, help: ArgumentHelp("Longest backoff, seconds.", valueName: "seconds"))
    var maxDelay = 300.0

    @Option(name: .long, help: ArgumentHelp("Webhook request timeout, seconds.", valueName: "seconds"))
    var timeout = 10.0

    @Option(name: .long, help: ArgumentHelp("With --follow: how often to look for new entries, seconds.", valueName: "seconds"))
    var poll = 2.0

    @Flag(name: .long, help: "Print how many entries are pending, delivered and dead, and why the dead ones failed.")
    var status = false

    @Option(name: .long, help: "Output format of --status: json or table.")
    var format: StatusFormat = .table

    @Flag(name: .long, help: "Print nothing on stderr except errors.")
    var quiet = false

    enum StatusFormat: String, ExpressibleByArgument, CaseIterable {
        case json, table
    }

    var resolvedSecret: String? {
        secret ?? ProcessInfo.processInfo.environment["BRACELET_WEBHOOK_SECRET"]
    }

    func validate() throws {
        if once && follow { throw ValidationError("--once and --follow exclude each other: pick one.") }
        if status {
            if webhook != nil || jsonl != nil { throw ValidationError("--status only reads the outbox; drop --webhook / --jsonl.") }
            return
        }
        switch (webhook, jsonl) {
        case (nil, nil): throw ValidationError("say where to deliver: --webhook URL --secret S, or --jsonl FILE (or use --status).")
        case (.some, .some): throw ValidationError("--webhook and --jsonl exclude each other: run sync once per sink.")
        case (.some, nil):
            if resolvedSecret?.isEmpty ?? true {
                throw ValidationError("--webhook needs --secret S (or $BRACELET_WEBHOOK_SECRET) so the receiver can check X-Bracelet-Signature.")
            }
        case (nil, .some):
            if secret != nil { throw ValidationError("--secret only applies to --webhook.") }
        }
        if maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1.") }
        if !(baseDelay > 0) || !(maxDelay >= baseDelay) { throw ValidationError("need 0 < --base-delay <= --max-delay.") }
        if !(timeout > 0) { throw ValidationError("--timeout must be positive.") }
        if !(poll > 0) { throw ValidationError("--poll must be positive.") }
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: db) else {
            throw ValidationError("no database at \(db). Run `bracelet ingest CAPTURE --db \(db)` first, or check the path.")
        }
        let store = try Store(path: db)
        do { try store.requireIntactStructure() } catch { throw CLIError("\(error)") }
        if status {
            try printStatus(store)
            return
        }
        let lock = try ForwarderLock(databasePath: db)
        defer { withExtendedLifetime(lock) {} }
        let sink: any OutboxSink
        if let webhook {
            sink = try WebhookSink(url: webhook, secret: resolvedSecret ?? "", timeoutSeconds: timeout)
        } else {
            sink = try JSONLinesSink(path: jsonl ?? "")
        }
        let policy = try RetryPolicy(baseDelayMilliseconds: Int64(baseDelay * 1000), maxDelayMilliseconds: Int64(maxDelay * 1000),
                                     maxAttempts: maxAttempts)
        let quiet = quiet
        let forwarder = Forwarder(store: store, sink: sink, policy: policy, onEvent: { event in
            if !quiet { SyncCommand.progress(event) }
        })
        let before = try store.outboxCounts()
        if !quiet { SyncCommand.stderrLine("sync: \(before.pending) pending entries -> \(sink.name)") }
        if follow {
            try await forwarder.follow(pollMilliseconds: Int64(poll * 1000))
            return
        }
        let report = try await forwarder.drain()
        let after = try store.outboxCounts()
        if !quiet {
            SyncCommand.stderrLine("sync: done: \(report.delivered) delivered, \(report.retried) retries, \(report.dead) new dead letters; "
                + "outbox now \(after.pending) pending, \(after.delivered) delivered, \(after.dead) dead")
        }
        if report.dead > 0 {
            SyncCommand.stderrLine("sync: \(report.dead) entries became dead letters; see `bracelet sync --db \(db) --status`.")
            throw ExitCode(3)
        }
    }

    func printStatus(_ store: Store) throws {
        let counts = try store.outboxCounts()
        let dead = try store.outboxEntries(state: .dead)
        switch format {
        case .json:
            let deadEntries: [[String: Any]] = dead.map { entry in
                [
                    "key": entry.key, "device": entry.device, "local_date": entry.localDate, "kind": entry.kind,
                    "version": entry.version, "attempts": entry.attempts, "reason": entry.lastError ?? "",
                ]
            }
            let object: [String: Any] = [
                "pending": counts.pending, "delivered": counts.delivered, "dead": counts.dead, "dead_entries": deadEntries,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        case .table:
            print("pending    \(counts.pending)")
            print("delivered  \(counts.delivered)")
            print("dead       \(counts.dead)")
            for entry in dead {
                print("  dead \(entry.key) after \(entry.attempts) attempts: \(entry.lastError ?? "no reason recorded")")
            }
        }
    }

    static func progress(_ event: ForwarderEvent) {
        switch event {
        case let .delivered(key, attempt, outcome):
            SyncCommand.stderrLine("sync: \(outcome) \(key) (attempt \(attempt))")
        case let .retryScheduled(key, attempt, retryAt, reason):
            let seconds = Double(retryAt - SystemClock().nowMilliseconds()) / 1000
            SyncCommand.stderrLine("sync: attempt \(attempt) of \(key) failed: \(reason); retry in \(String(format: "%.1f", max(0, seconds))) s")
        case let .dead(key, attempt, reason):
            SyncCommand.stderrLine("sync: DEAD \(key) after attempt \(attempt): \(reason)")
        case let .waiting(milliseconds, pending):
            SyncCommand.stderrLine("sync: \(pending) devices waiting; next retry in \(String(format: "%.1f", Double(milliseconds) / 1000)) s")
        }
    }

    /// Writes one progress line to stderr.
    static func stderrLine(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
