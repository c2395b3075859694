import BraceletDecoder
import BraceletSummaries
import Testing
@testable import BraceletVitality

/// The days a window reads, taken newest first, build the window that all the days build.
@Suite struct WindowDaysReadTests {
    /// 60 days with gaps, incomplete days, days without any metric and a day not over yet, under
    /// every window length, a fixed end (inside, after, before the days) or none, with and without
    /// the incomplete days: the same window or the same error either way, from fewer days when the
    /// history is longer than the window.
    @Test func theDaysReadBuildTheWindowEveryDayBuilds() throws {
        var generator = SystemRandomNumberGenerator()
        let jan1 = CompleteDaysTests.jan1
        let now = jan1 + 58 * 86_400 + 3_600
        for trial in 0..<40 {
            let days: [DatedVitalityMetrics] = (0..<60).compactMap { i in
                let kind = Int.random(in: 0..<10, using: &generator)
                if kind == 0 { return nil }   // no summary that day
                let recorded = kind == 1 ? 600 : 1440
                let empty = kind == 2
                return DatedVitalityMetrics(
                    date: LocalDate(iso: "2026-01-01")!.adding(days: i),
                    metrics: VitalityRawMetrics(age: 35, sleepDurationHours: empty ? nil : 7, steps: empty ? nil : 9_000 + i,
                                                restingHeartRate: empty ? nil : 55),
                    coverage: DayCoverage(dayEnd: jan1 + Int64(i + 1) * 86_400, dayMinutes: 1440, recordedMinutes: recorded,
                                          wornMinutes: recorded, dayIsOver: true))
            }
            for length in [7, 14, 30] {
                for end in [nil, "2026-01-20", "2026-02-28", "2026-04-01", "2025-12-01"].map({ $0.flatMap { LocalDate(iso: $0) } }) {
                    for incomplete in [false, true] {
                        let builder = VitalityWindowBuilder(length: length, end: end, minimumDays: 2, includeIncompleteDays: incomplete, now: now)
                        var newest = days.endIndex
                        let read = builder.daysRead { newest > 0 ? { newest -= 1; return days[newest] }() : nil }
                        let context = "trial \(trial), length \(length), end \(end?.description ?? "-"), incomplete \(incomplete)"
                        #expect(built(builder, read) == built(builder, days), "\(context)")
                        #expect(read.count <= days.count && read == read.sorted { $0.date < $1.date })
                        if end == nil && length == 7 { #expect(read.count < days.count / 2, "\(context): \(read.count) of \(days.count) days read") }
                        if end != nil { #expect(read.allSatisfy { $0.date <= end! && $0.date > end!.adding(days: -length) }, "\(context)") }
                    }
                }
            }
        }
    }

    /// The window `builder` builds from `days`, or why it cannot.
    func built(_ builder: VitalityWindowBuilder, _ days: [DatedVitalityMetrics]) -> Result<VitalityWindow, VitalityWindowError> {
        do { return .success(try builder.build(from: days, age: 35)) } catch { return .failure(error) }
    }
}
