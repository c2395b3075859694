import Foundation

/// The formats `bracelet export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Open mHealth data points (JSON array).
    case omh
    /// IEEE 1752.1 data points (JSON array).
    case ieee1752
    /// One FHIR R4/R4B Bundle.
    case fhir
    /// The ROOK file `bracelet score --rook` reads.
    case rook
    /// CSV table(s).
    case csv

    /// What one export contains.
    public var summary: String {
        switch self {
        case .omh: "Open mHealth data points: heart-rate 2.0, step-count 3.0, sleep-episode 1.1, rr-interval 1.0, oxygen-saturation 2.0, respiratory-rate 2.0, body-temperature 4.0"
        case .ieee1752: "IEEE 1752.1 data points: sleep-episode, sleep-stage-summary, total-sleep-time, physical-activity 1.0"
        case .fhir: "a FHIR R4B Bundle: Device, daily and sleep Observations (LOINC, UCUM)"
        case .rook: "ROOK sleep/physical summaries, as bracelet score --rook reads them"
        case .csv: "a CSV table: daily, sleep or slots (--table)"
        }
    }
}

/// Options of one export beyond the data.
public struct ExportOptions: Sendable, Equatable {
    /// The FHIR Patient id the observations are about (`subject`), if any.
    public var user: String?
    /// The CSV table.
    public var table: CSVExport.Table
    /// Indented JSON for people; false writes one line (a JSON Lines record, a request body).
    public var prettyPrinted: Bool

    /// Creates options.
    public init(user: String? = nil, table: CSVExport.Table = .daily, prettyPrinted: Bool = true) {
        self.user = user
        self.table = table
        self.prettyPrinted = prettyPrinted
    }
}

extension ExportDataset {
    /// The dataset written in `format`: JSON (pretty-printed, sorted keys) or CSV text, as bytes.
    public func rendered(as format: ExportFormat, options: ExportOptions = ExportOptions()) throws -> Data {
        switch format {
        case .omh: try OMHExport.document(self).jsonData(prettyPrinted: options.prettyPrinted)
        case .ieee1752: try IEEE1752Export.document(self).jsonData(prettyPrinted: options.prettyPrinted)
        case .fhir: try FHIRExport.bundle(self, user: options.user).jsonData(prettyPrinted: options.prettyPrinted)
        case .rook: try ROOKExport.jsonData(self, prettyPrinted: options.prettyPrinted)
        case .csv: Data(CSVExport.text(self, table: options.table).utf8)
        }
    }
}
