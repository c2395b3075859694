import ArgumentParser
import BraceletDecoder
import BraceletVitality

/// The window a score is made over, as `score` and `fleet score` take it.
struct ScoreWindowOptions: ParsableArguments {
    @Option(name: .long, help: "Window length in days (7-30).")
    var days: Int = 7

    @Option(name: .long, help: "Last day of the window, YYYY-MM-DD (default: latest day with data).")
    var end: String?

    @Option(name: .customLong("min-days"), help: "Days each required metric (sleep, steps, HRV or resting HR) must have (default: half the window).")
    var minDays: Int?

    @Flag(name: .customLong("include-incomplete"), help: "Also use days that are not over or not fully recorded.")
    var includeIncomplete = false

    /// Refuses a window no input could have (`score` and `fleet score` alike), before anything is read.
    func validate() throws {
        if let end, LocalDate(iso: end) == nil {
            throw ValidationError("--end \(end) is not a date written YYYY-MM-DD")
        }
        do { try builder.validate() } catch { throw ValidationError(error.description) }
    }

    /// The window builder of these options.
    var builder: VitalityWindowBuilder {
        VitalityWindowBuilder(length: days, end: end.flatMap { LocalDate(iso: $0) }, minimumDays: minDays, includeIncompleteDays: includeIncomplete)
    }
}
