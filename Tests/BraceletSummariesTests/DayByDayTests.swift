import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// The day-by-day summarizer must hand over exactly what the engine computes from the whole input
/// at once, while holding only a few days.
@Suite struct DayByDayTests {
    /// Runs the three passes `summarize CAPTURE` runs, feeding slots and beats in batches of random size.
    static func dayByDay(slots: [Slot], beats: [Beat], configuration: SummaryConfiguration,
                         using rng: inout SeededGenerator) -> (days: [DailySummary], sessions: [SleepSession],
                                                                diagnostics: [SummaryDiagnostic], outOfOrder: Bool, heldDays: Int) {
        func batches<T>(_ items: [T], _ rng: inout SeededGenerator) -> [[T]] {
            var result: [[T]] = []
            var index = 0
            while index < items.count {
                let size = Int.random(in: 1...2000, using: &rng)
                result.append(Array(items[index..<min(items.count, index + size)]))
                index += size
            }
            return result
        }
        let slotBatches = batches(slots, &rng)
        var sessionsPass = DayByDaySummarizer(configuration: configuration, now: testNow)
        var windows: [SessionWindow] = []
        // The sessions' windows, and the night windows of days without one (as `summarize CAPTURE` collects them).
        func keep(_ day: DayByDaySummarizer.FinishedDay) {
            windows += day.sleepSessions.map { SessionWindow(start: $0.startSession, stop: $0.stopSession) }
            if let night = day.nightWindow { windows.append(night) }
        }
        for batch in slotBatches { sessionsPass.add(batch, finished: keep) }
        _ = sessionsPass.finish(finished: keep)
        var collector = SessionHRVCollector(windows: windows, now: testNow)
        for batch in batches(beats, &rng) { collector.add(batch) }
        let (hrv, dropped) = collector.finish()

        var summarizer = DayByDaySummarizer(configuration: configuration, now: testNow, nightlyHRV: hrv)
        var days: [DailySummary] = [], sessions: [SleepSession] = []
        var heldDays = 0
        for batch in slotBatches {
            summarizer.add(batch) { day in
                days.append(day.summary)
                sessions += day.sleepSessions
            }
            // Days fed but not handed over yet: what memory holds.
            if let last = batch.last, let handed = days.last {
                heldDays = max(heldDays, Int((last.start - handed.dayEnd) / 86_400))
            }
        }
        let diagnostics = summarizer.finish(beatTally: dropped) { day in
            days.append(day.summary)
            sessions += day.sleepSessions
        }
        #expect(!summarizer.missingNightlyHRV)
        return (days, sessions, diagnostics, sessionsPass.outOfOrder || collector.outOfOrder || summarizer.outOfOrder, heldDays)
    }

    @Test(arguments: 0..<6)
    func equalsTheWholeInputAtOnce(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 104_729 &+ 5)
        let configuration = try SummaryConfiguration(age: 35, timeZone: SummaryConfiguration.timeZone(named: "Europe/Amsterdam"))
        let (generated, beats) = IncrementalPropertyTests.history(days: 9, using: &rng)
        // In time order (the generator writes the night's hypnogram after the day's vitals).
        let slots = generated.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        let sortedBeats = beats.sorted { $0.timeMs < $1.timeMs }

        var whole = SummaryEngine(configuration: configuration)
        let expectedDiagnostics = whole.add(slots: slots, beats: sortedBeats, now: testNow)
        let result = Self.dayByDay(slots: slots, beats: sortedBeats, configuration: configuration, using: &rng)

        #expect(!result.outOfOrder)
        #expect(result.days.map(\.date) == whole.days.map(\.date))
        #expect(result.days == whole.days)
        #expect(result.sessions == whole.sleepSessions)
        #expect(result.sessions.contains { $0.isMainSleep })
        #expect(result.days.contains { $0.sleepHRV?.rmssdMs != nil })
        #expect(result.diagnostics.map(\.message) == expectedDiagnostics.map(\.message))
        // Nine days (one of 23 hours) went through while at most three were held.
        #expect(result.days.count >= 9)
        #expect(result.heldDays <= 3)
    }

    @Test func samplesOutOfOrderAreReported() throws {
        var rng = SeededGenerator(seed: 4)
        let configuration = try utcConfiguration()
        let (generated, _) = IncrementalPropertyTests.history(days: 3, using: &rng)
        // As generated: every vitals sample, then each night's hypnogram, hours behind them.
        var summarizer = DayByDaySummarizer(configuration: configuration, now: testNow)
        summarizer.add(generated) { _ in }
        _ = summarizer.finish { _ in }
        #expect(summarizer.outOfOrder)

        var collector = SessionHRVCollector(windows: [SessionWindow(start: 0, stop: 10)], now: testNow)
        collector.add([Beat(timeMs: 1_768_500_000_000, rrMs: 900), Beat(timeMs: 1_768_490_000_000, rrMs: 900)])
        #expect(collector.outOfOrder)
    }
}
