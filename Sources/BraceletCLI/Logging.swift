import ArgumentParser
import Foundation
import Synchronization

/// Severity of a diagnostic line, ranked as syslog and journald rank them.
///
/// A lower level is more severe: `error < warning < info < debug`, as their syslog priorities
/// (3, 4, 6, 7). A threshold of `info` lets through `error`, `warning` and `info`.
enum LogLevel: String, CaseIterable, Comparable, ExpressibleByArgument {
    case error, warning, info, debug

    /// The syslog priority journald reads from the `<N>` prefix of a line (sd-daemon(3)).
    var priority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .info: 6
        case .debug: 7
        }
    }

    static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.priority < rhs.priority }
}

/// The process's diagnostic lines on standard error, filtered by the chosen level; under systemd
/// (JOURNAL_STREAM set) each line starts with the sd-daemon priority prefix (<3>, <4>, <6>, <7>).
///
/// Standard output stays for data: nothing here ever writes to it.
enum Log {
    /// The most verbose level written; `info` until a command's ``LogOptions/apply()`` sets it.
    private static let threshold = Atomic<Int>(LogLevel.info.priority)

    /// Whether standard error goes to the journal: systemd sets JOURNAL_STREAM for a service whose
    /// standard error is connected to it, and then the journal reads each line's priority prefix.
    static let toJournal: Bool = {
        guard let value = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        return !value.isEmpty
    }()

    /// Sets the most verbose level written.
    static func setThreshold(_ level: LogLevel) {
        threshold.store(level.priority, ordering: .relaxed)
    }

    /// Whether a line at `level` is written now (for callers that would build an expensive line).
    static func isEnabled(_ level: LogLevel) -> Bool {
        level.priority <= threshold.load(ordering: .relaxed)
    }

    /// An error: the command failed or part of its work was lost.
    static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    /// A warning: the command goes on, but something needs the reader's attention.
    static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    /// Progress and notes a person running the command wants to see.
    static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    /// Detail for finding out why something happened.
    static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    /// The text written for `message` at `level`: each line of it prefixed with `<N>` for the
    /// journal, so a multi-line message keeps its priority on every line; unchanged otherwise.
    static func formatted(_ level: LogLevel, _ message: String, journal: Bool) -> String {
        guard journal else { return message + "\n" }
        let prefix = "<\(level.priority)>"
        return message.split(separator: "\n", omittingEmptySubsequences: false)
            .map { prefix + $0 + "\n" }.joined()
    }

    /// A progress line (``ProgressReporter``): at info priority, written when info lines are, or
    /// always when `forced` (`--progress always`).
    static func progress(_ message: String, forced: Bool) {
        guard forced || isEnabled(.info) else { return }
        emit(formatted(.info, message, journal: toJournal))
    }

    private static func write(_ level: LogLevel, _ message: () -> String) {
        guard isEnabled(level) else { return }
        emit(formatted(level, message(), journal: toJournal))
    }

    /// Writes a formatted line, first clearing a progress bar drawn on the terminal's last line.
    private static func emit(_ text: String) {
        let clear = TerminalBar.shown.exchange(false, ordering: .relaxed) ? "\r\u{1B}[K" : ""
        printError(clear + text, terminated: "")
    }
}

/// `--log-level LEVEL` and `--quiet`, for `@OptionGroup`; `apply()` sets the process's threshold.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The least severe diagnostics written on standard error (default: info).", valueName: "level"))
    var logLevel: LogLevel?

    @Flag(help: "Write only errors on standard error (the same as --log-level error).")
    var quiet = false

    /// The level chosen: `--log-level`, else `error` for `--quiet`, else `info`.
    var level: LogLevel { logLevel ?? (quiet ? .error : .info) }

    func validate() throws {
        if quiet, let logLevel, logLevel != .error {
            throw ValidationError("--quiet means --log-level error, but --log-level \(logLevel.rawValue) was given too: give one of them")
        }
    }

    /// Sets the process's threshold to ``level``.
    func apply() { Log.setThreshold(level) }
}

/// A command whose diagnostics follow `--log-level` / `--quiet`: `bracelet` applies its options
/// before it runs the command, so no command can forget to.
protocol LoggingCommand: ParsableCommand {
    /// The command's `--log-level` and `--quiet`.
    var log: LogOptions { get }
}
