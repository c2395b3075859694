import BraceletDecoder
import Foundation
import Testing
@testable import BraceletVitality

/// Loads a ROOK sample file from the test bundle's Fixtures folder.
func loadFixture(_ name: String) throws -> ROOKInputFile {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
                           "fixture \(name).json missing from the test bundle")
    return try ROOKInputFile.decode(try Data(contentsOf: url))
}

/// Maps every day of a ROOK file with the ROOK adapter.
func dated(_ file: ROOKInputFile, age: Int) -> [DatedVitalityMetrics] {
    file.days.map { day in
        let (metrics, missing) = ROOKDataAdapter.map(day: day, age: age)
        return DatedVitalityMetrics(date: day.date, metrics: metrics, missing: missing)
    }
}

/// `a` and `b` both present and within `tolerance`.
func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// A date that is known to be valid.
func date(_ text: String) -> LocalDate {
    guard let d = LocalDate(iso: text) else { fatalError("bad test date \(text)") }
    return d
}
