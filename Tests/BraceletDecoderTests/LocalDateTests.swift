import Testing
@testable import BraceletDecoder

/// The date written `text`; a test with a bad literal stops here.
private func date(_ text: String) -> LocalDate {
    guard let value = LocalDate(iso: text) else { fatalError("bad test date \(text)") }
    return value
}

@Suite struct LocalDateTests {
    @Test func parsesOnlyRealDates() {
        #expect(LocalDate(iso: "2026-01-05")?.description == "2026-01-05")
        #expect(LocalDate(iso: "2024-02-29") != nil)   // leap year
        #expect(LocalDate(iso: "2026-02-29") == nil)
        #expect(LocalDate(iso: "1900-02-29") == nil)   // century, not a leap year
        #expect(LocalDate(iso: "2000-02-29") != nil)   // divisible by 400
        #expect(LocalDate(iso: "2026-1-05") == nil)
        #expect(LocalDate(iso: "2026-01-05T00:00") == nil)
        #expect(LocalDate(iso: "") == nil)
    }

    @Test func dayArithmetic() {
        #expect(date("1970-01-01").dayNumber == 0)
        #expect(date("2000-03-01").dayNumber == 11_017)
        #expect(date("2025-12-31").adding(days: 1) == date("2026-01-01"))
        #expect(date("2026-01-06").adding(days: -29) == date("2025-12-08"))
        #expect(date("2024-03-01").adding(days: -1) == date("2024-02-29"))
        for n in stride(from: -50_000, through: 50_000, by: 37) {
            #expect(LocalDate(dayNumber: n).dayNumber == n)
        }
    }
}
