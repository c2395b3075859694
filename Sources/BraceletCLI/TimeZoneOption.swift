import BraceletSummaries
import Foundation

/// The one parser of `--tz` values, the `transform` of every command's `--tz` option: an IANA name
/// (`Europe/Amsterdam`), `UTC`, or a fixed offset (`+02:00`), as
/// ``SummaryConfiguration/timeZone(named:)`` reads them. Parsing while the arguments are read refuses a
/// bad zone before any work, with the same message in every command.
func parseTimeZoneOption(_ text: String) throws(SummaryConfigurationError) -> TimeZone {
    try SummaryConfiguration.timeZone(named: text)
}
