import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--progress`: whether long work shows signs of life on standard error.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    /// With --log-level info or more verbose: a bar on a terminal, else a line every few seconds.
    case auto
    /// Also with --quiet (or --log-level warning/error).
    case always
    /// No progress lines (messages and results are unchanged).
    case never
}

/// `--progress auto|always|never`, shared by the commands that do long work (ingest, listen,
/// recompute, gateway run): one option group, one reporter.
struct ProgressOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Progress on standard error: auto (at --log-level info: a bar with rate and time left on a terminal, else a line every few seconds, as under systemd), always (also with --quiet), never.",
                               valueName: "mode"))
    var progress: ProgressMode = .auto

    /// Seconds between two progress lines when standard error is not a terminal.
    @Option(name: .customLong("progress-interval"), help: ArgumentHelp("Seconds between progress lines when not on a terminal.", visibility: .hidden))
    var interval: Double = 5

    func validate() throws {
        guard interval.isFinite, (0.1...3600).contains(interval) else {
            throw ValidationError("--progress-interval must be 0.1-3600 seconds, not \(interval)")
        }
    }

    /// The reporter of `command` (its lines start `command: `), in the form the mode, the log
    /// level and standard error allow; `immediate`: a new phase is shown at once (a command, whose
    /// first line must come within a second), else only every interval (the gateway, whose short
    /// syncs stay quiet and whose backfills show a line every few seconds).
    func reporter(_ command: String, immediate: Bool = true) -> ProgressReporter {
        let shown = progress == .always || (progress == .auto && Log.isEnabled(.info))
        let form: ProgressReporter.Form = !shown ? .off : (isatty(STDERR_FILENO) == 1 && !Log.toJournal && immediate) ? .bar : .lines
        return ProgressReporter(command: command, form: form, interval: interval, forced: progress == .always, immediate: immediate)
    }
}
