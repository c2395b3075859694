import BraceletIngest
import BraceletTransport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one progress reporter: folds the library's typed ``BraceletIngest/WorkProgress`` (and the
/// command's own phases, ``begin(_:)``) into one line with the rate and the time left, and shows it
///
/// - as a bar redrawn in place a few times a second on a terminal,
/// - as a line every ``interval`` seconds otherwise (a journal, a pipe), at once for a new phase,
/// - not at all when off.
///
/// Thread-safe: the library reports from its queues, a ticker thread keeps the line alive while
/// the work blocks (a bracelet that takes its time to answer still gets a line every few seconds).
final class ProgressReporter: @unchecked Sendable {
    /// How progress is shown.
    enum Form { case bar, lines, off }

    let command: String
    let form: Form
    /// Seconds between two lines (``Form/lines``).
    let interval: Double
    private let forced: Bool
    private let immediate: Bool
    private let lock = NSCondition()
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    // Guarded by `lock`:
    private var phase: Phase?
    private var phaseStarted = 0.0
    /// When the library last reported (a transfer that stalls says how long it has waited).
    private var lastUpdateAt = 0.0
    private var lastLineAt = -Double.infinity
    private var lastShown = ""
    private var stopped = false
    private var ticker: Thread?

    /// What is being done now.
    private enum Phase {
        case text(String)
        case work(WorkProgress)

        /// Whether `other` continues this phase (the same kind of work) rather than starting another.
        func continues(_ other: Phase) -> Bool {
            switch (self, other) {
            case let (.text(a), .text(b)): a == b
            case (.work(.connecting), .work(.connecting)), (.work(.askingBracelet), .work(.askingBracelet)),
                 (.work(.transferring), .work(.transferring)), (.work(.recomputing), .work(.recomputing)): true
            case let (.work(.storing(a, _, _, _)), .work(.storing(b, _, _, _))): a == b
            default: false
            }
        }
    }

    init(command: String, form: Form, interval: Double, forced: Bool, immediate: Bool) {
        self.command = command
        self.form = form
        self.interval = interval
        self.forced = forced
        self.immediate = immediate
        origin = clock.now
    }

    deinit { finish() }

    private var now: Double {
        let (s, a) = origin.duration(to: clock.now).components
        return Double(s) + Double(a) / 1e18
    }

    /// A phase of the command's own (opening the database, ...), shown like the library's.
    func begin(_ text: String) { show(.text(text)) }

    /// Where the library's work stands.
    func update(_ progress: WorkProgress) { show(.work(progress)) }

    private func show(_ next: Phase) {
        guard form != .off else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        let t = now
        let isNew = phase.map { !$0.continues(next) } ?? true
        if isNew { phaseStarted = t }
        lastUpdateAt = t
        phase = next
        startTickerLocked()
        if form == .bar {
            // Redrawn at once for a new phase; the ticker redraws changes a few times a second.
            if isNew { drawLocked(at: t) }
        } else if isNew && immediate {
            // A command has few phases: each is shown as it begins, even a short one.
            writeLineLocked(at: t)
        }
    }

    /// Clears a bar drawn on the terminal, before the command writes a line of its own there (a
    /// live sample on standard output); the next tick draws it again.
    func clearBar() {
        guard form == .bar, TerminalBar.shown.exchange(false, ordering: .relaxed) else { return }
        printError("\r\u{1B}[K", terminated: "")
    }

    /// Stops showing progress: the ticker ends and a bar is cleared, so the command's own lines follow.
    func finish() {
        lock.lock()
        let thread = ticker
        let wasStopped = stopped
        stopped = true
        lock.broadcast()
        lock.unlock()
        _ = thread  // it wakes, sees `stopped` and ends
        if !wasStopped, form == .bar, TerminalBar.shown.exchange(false, ordering: .relaxed) {
            printError("\r\u{1B}[K", terminated: "")
        }
    }

    private func startTickerLocked() {
        guard ticker == nil else { return }
        let tick = form == .bar ? 0.25 : min(interval / 4, 1)
        let thread = Thread { [weak self] in
            while let self, self.tick(waiting: tick) {}
        }
        thread.name = "bracelet.progress"
        ticker = thread
        thread.start()
    }

    /// One tick: waits `seconds` (or until finished), then shows what is due. Returns false once finished.
    private func tick(waiting seconds: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if !stopped { _ = lock.wait(until: Date(timeIntervalSinceNow: seconds)) }
        guard !stopped else { return false }
        let t = now
        switch form {
        case .bar: drawLocked(at: t)
        // Without `immediate`, work shorter than an interval shows nothing (t counts from the start).
        case .lines: if t - lastLineAt >= interval - 0.05, immediate || t >= interval - 0.05 { writeLineLocked(at: t) }
        case .off: return false
        }
        return true
    }

    private func writeLineLocked(at t: Double) {
        guard let text = textLocked(at: t) else { return }
        lastLineAt = t
        Log.progress("\(command): \(text)", forced: forced)
    }

    private func drawLocked(at t: Double) {
        guard let text = textLocked(at: t) else { return }
        var line = "\(command): " + (fractionLocked().map { Self.bar($0) + " " } ?? "") + text
        let width = Self.terminalColumns()
        if line.count > width - 1 { line = String(line.prefix(width - 2)) + "…" }
        guard line != lastShown || !TerminalBar.shown.load(ordering: .relaxed) else { return }
        lastShown = line
        TerminalBar.shown.store(true, ordering: .relaxed)
        printError("\r" + line + "\u{1B}[K", terminated: "")
    }

    /// The share of the phase done, when it is known.
    private func fractionLocked() -> Double? {
        guard case .work(let work)? = phase else { return nil }
        switch work {
        case .transferring(let p): return p.bytesTotal.flatMap { $0 > 0 ? Double(p.bytesDone) / Double($0) : nil }
        case let .storing(_, done, total, _), let .recomputing(done, total): return total > 0 ? Double(done) / Double(total) : nil
        case .connecting, .askingBracelet: return nil
        }
    }

    /// The line of the phase at `t` (seconds since the reporter began).
    private func textLocked(at t: Double) -> String? {
        guard let phase else { return nil }
        let elapsed = t - phaseStarted
        switch phase {
        case .text(let text):
            return text + Self.waited(elapsed)
        case .work(.connecting(let attempt)):
            return "connecting to the bracelet" + (attempt > 1 ? " (attempt \(attempt))" : "") + Self.waited(elapsed)
        case .work(.askingBracelet):
            return "connected; asking the bracelet what it holds" + Self.waited(elapsed)
        case .work(.transferring(let p)):
            let quiet = t - lastUpdateAt
            return Self.backlogLine(p) + (quiet >= 2 ? "; waiting for the bracelet for \(Int(quiet)) s" : "")
        case let .work(.storing(file, done, total, unit)):
            let name = (file as NSString).lastPathComponent
            return unit == .bytes
                ? "reading \(name): " + Self.counted(done, total, elapsed, show: { Self.megabytes($0) }, unit: "MB", rateUnit: "MB/s", rateShow: { Self.megabytes(Int($0)) })
                : "storing \(name): " + Self.counted(done, total, elapsed, show: String.init, unit: "rows", rateUnit: "rows/s", rateShow: Self.rate)
        case let .work(.recomputing(done, total)):
            return "recomputing: " + Self.counted(done, total, elapsed, show: String.init, unit: "days", rateUnit: "days/s", rateShow: Self.rate)
                + (done == 0 ? Self.waited(elapsed) : "")
        }
    }
}

/// Whether a progress bar is drawn on the terminal's last line: a diagnostic line clears it first,
/// so messages never run into the bar (the next tick draws it again below them).
enum TerminalBar {
    static let shown = Atomic<Bool>(false)
}
