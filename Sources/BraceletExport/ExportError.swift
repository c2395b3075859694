/// Why an export or report could not be made; each case says what to do.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database holds nothing to export for the request.
    case nothingToExport(String)
    /// A stored summary could not be read back.
    case unreadableSummary(String)
    /// The days were cut in a time zone other than the one given (or one that cannot be inferred).
    case timeZone(String)
    /// A request option is wrong (dates, day count, ...).
    case invalidRequest(String)
    /// Writing JSON failed.
    case encoding(String)

    /// The message, with what to do.
    public var description: String {
        switch self {
        case let .nothingToExport(text), let .unreadableSummary(text), let .timeZone(text),
             let .invalidRequest(text), let .encoding(text):
            return text
        }
    }
}
