import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// Stage samples with an activity code every `interval` seconds covering [from, to).
func stagesWithActivity(_ stage: Int, activity: Int, from: Int64, to: Int64, interval: Int32 = 60) -> [Slot] {
    stride(from: from, to: to, by: Int(interval)).map { slot($0, interval, wearing: 4, activity: activity, stage: stage) }
}

/// Main sleep needs >= 3 h of sleep and a session not cut by the edge of the data; pre-sleep
/// wakefulness in bed (activity rest) is attached, wakefulness while up is not.
@Suite struct MainSleepTests {
    /// Up (activity 1) 20:00-22:40 on 14 Jan, in bed awake 22:40-23:00, asleep (light) 23:00-06:30,
    /// in bed awake 06:30-06:40, up 06:40-09:00.
    static var night: [Slot] {
        stagesWithActivity(1, activity: 1, from: at(-4, 0), to: at(-1, -20))
            + stagesWithActivity(1, activity: 7, from: at(-1, -20), to: at(-1, 0))
            + stagesWithActivity(2, activity: 7, from: at(-1, 0), to: at(6, 30))
            + stagesWithActivity(1, activity: 7, from: at(6, 30), to: at(6, 40))
            + stagesWithActivity(1, activity: 1, from: at(6, 40), to: at(9, 0))
    }

    @Test func awakeInBedBeforeAndAfterSleepIsAttachedAwakeWhileUpIsNot() throws {
        let e = try engine(Self.night)
        let s = try #require(e.sleepSessions.first)
        #expect(e.sleepSessions.count == 1)
        #expect(s.startSession == at(-1, -20))   // 22:40: lights out, not the 2 h 40 min of being up before
        #expect(s.timeToSleep == 1_200)          // 22:40 -> 23:00
        #expect(s.stopSession == at(6, 40))
        #expect(s.timeToWakeUp == 600)           // 06:30 -> 06:40
        #expect(s.totalSleepDuration == 27_000)  // 7 h 30 min
        #expect(s.truncated == false)
        #expect(s.isMainSleep)
        #expect(e.day("2026-01-15")?.mainSleepStart == at(-1, -20))
    }

    @Test func aNineteenMinuteNapIsNeverTheMainSleep() throws {
        // The day's only session: 14:00-14:19 light, between hours of being up.
        let samples = stagesWithActivity(1, activity: 1, from: at(9, 0), to: at(14, 0))
            + stagesWithActivity(2, activity: 7, from: at(14, 0), to: at(14, 19))
            + stagesWithActivity(1, activity: 1, from: at(14, 19), to: at(20, 0))
        let e = try engine(samples)
        let nap = try #require(e.sleepSessions.first)
        #expect(nap.totalSleepDuration == 1_140)
        #expect(nap.truncated == false)
        #expect(nap.isMainSleep == false)
        #expect(SummaryTableRenderer.kind(of: nap) == "nap")
        let day = try #require(e.day("2026-01-15"))
        #expect(day.mainSleepStart == nil)       // no night: main-sleep metrics are null, not the nap's
        #expect(day.sleepHRV == nil)
        #expect(day.bpm.sleepRestingBPM == nil)
    }

    @Test func threeHoursOfSleepIsTheThreshold() throws {
        func session(sleepSeconds: Int64) throws -> SleepSession {
            let samples = stagesWithActivity(1, activity: 1, from: at(0, 0), to: at(1, 0), interval: 30)
                + stagesWithActivity(2, activity: 7, from: at(1, 0), to: at(1, 0) + sleepSeconds, interval: 30)
                + stagesWithActivity(1, activity: 1, from: at(1, 0) + sleepSeconds, to: at(9, 0), interval: 30)
            return try #require(try engine(samples).sleepSessions.first)
        }
        #expect(try session(sleepSeconds: 10_800).isMainSleep)          // exactly 3 h
        #expect(try session(sleepSeconds: 10_770).isMainSleep == false) // 30 s short
    }

    @Test func aNightCutByTheStartOrEndOfTheDataIsTruncatedAndNotScored() throws {
        // Data begins at 02:00 while asleep: the night began earlier.
        let cutAtStart = stagesWithActivity(2, activity: 7, from: at(2, 0), to: at(7, 0))
            + stagesWithActivity(1, activity: 1, from: at(7, 0), to: at(12, 0))
        let first = try engine(cutAtStart)
        #expect(first.sleepSessions.map(\.truncated) == [true])
        #expect(first.sleepSessions.map(\.isMainSleep) == [false])
        #expect(first.day("2026-01-15")?.mainSleepStart == nil)
        // The table says why it is not the night: truncated, not a nap (5 h of sleep is no nap).
        let cutRow = try #require(first.sleepSessions.first.map { SummaryTableRenderer.sessionRow($0, zone: TimeZone(identifier: "UTC")!) })
        #expect(cutRow.hasPrefix("2026-01-15 01-15 02:00 01-15 07:00 trunc   5:00 "), "\(cutRow)")
        #expect(SummaryTableRenderer.render(first.document()).contains("trunc: cut by the start or end of the data"))

        // Data ends at 03:00 while asleep; later data (awake from 06:00) makes it whole.
        let evening = stagesWithActivity(1, activity: 1, from: at(-4, 0), to: at(-1, 0))
            + stagesWithActivity(3, activity: 7, from: at(-1, 0), to: at(3, 0))
        var e = SummaryEngine(configuration: try utcConfiguration())
        e.add(slots: evening, now: testNow)
        #expect(e.sleepSessions.map(\.truncated) == [true])
        #expect(e.day("2026-01-15")?.mainSleepStart == nil)
        e.add(slots: stagesWithActivity(3, activity: 7, from: at(3, 0), to: at(6, 0))
                + stagesWithActivity(1, activity: 1, from: at(6, 0), to: at(8, 0)), now: testNow)
        #expect(e.sleepSessions.map(\.truncated) == [false])
        #expect(e.sleepSessions.map(\.totalSleepDuration) == [25_200])
        #expect(e.sleepSessions.map(SummaryTableRenderer.kind(of:)) == ["main"])
        #expect(e.day("2026-01-15")?.mainSleepStart == at(-1, 0))
        var whole = e
        whole.recomputeAll()
        #expect(whole.sleepSessions == e.sleepSessions)
        #expect(whole.days == e.days)
    }
}
