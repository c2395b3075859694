import ArgumentParser
import Foundation
import Synchronization

/// Severity of a diagnostic line, ranked as syslog and journald rank them.
enum LogLevel: String, CaseIterable, Comparable, ExpressibleByArgument {
    case error, warning, info, debug

    /// The sd-daemon priority (syslog severity) of the level.
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
enum Log {
    private static let threshold = Atomic<Int>(LogLevel.info.priority)
    private static let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil

    /// Shows lines of `level` and more severe ones.
    static func setThreshold(_ level: LogLevel) { threshold.store(level.priority, ordering: .relaxed) }

    static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    private static func write(_ level: LogLevel, _ message: () -> String) {
        guard level.priority <= threshold.load(ordering: .relaxed) else { return }
        let line = (journal ? "<\(level.priority)>" : "") + message() + "\n"
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }
}

/// `--log-level LEVEL` and `--quiet`, for `@OptionGroup`; `apply()` sets the process's threshold.
struct LogOptions: ParsableArguments {
    @Option(help: "Show diagnostic lines of this level and more severe ones: error, warning, info, debug.")
    var logLevel: LogLevel = .info

    @Flag(help: "Show errors only (the same as --log-level error).")
    var quiet = false

    /// Sets the process's threshold.
    func apply() { Log.setThreshold(quiet ? .error : logLevel) }
}
