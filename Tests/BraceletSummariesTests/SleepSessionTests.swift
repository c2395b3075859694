import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// Hand-computed sleep sessions from 30-second hypnograms (UTC; the night of 14-15 January 2026).
@Suite struct SleepSessionTests {
    /// 21:30 no data, 21:40 awake, 22:00 light, 23:00 deep, 00:00 awake, 00:10 no data, 00:30 REM,
    /// 01:30 light, 02:00 awake until 02:15, then nothing.
    static var night: [Slot] {
        stages(0, from: at(-3, 30), to: at(-3, 40)) + stages(1, from: at(-3, 40), to: at(-2, 0))
            + stages(2, from: at(-2, 0), to: at(-1, 0)) + stages(3, from: at(-1, 0), to: at(0, 0))
            + stages(1, from: at(0, 0), to: at(0, 10)) + stages(0, from: at(0, 10), to: at(0, 30))
            + stages(4, from: at(0, 30), to: at(1, 30)) + stages(2, from: at(1, 30), to: at(2, 0))
            + stages(1, from: at(2, 0), to: at(2, 15))
    }

    /// 12:00-14:00 awake (minute samples), 14:00 light nap, 14:20 awake, 14:25 no data; 16:00 ten minutes of light.
    static var afternoon: [Slot] {
        stages(1, from: at(12, 0), to: at(14, 0), interval: 60) + stages(2, from: at(14, 0), to: at(14, 20))
            + stages(1, from: at(14, 20), to: at(14, 25)) + stages(0, from: at(14, 25), to: at(14, 30))
            + stages(0, from: at(15, 50), to: at(16, 0)) + stages(2, from: at(16, 0), to: at(16, 10))
            + stages(0, from: at(16, 10), to: at(16, 20))
    }

    @Test func nightSessionFieldsByHand() throws {
        let e = try engine(Self.night + Self.afternoon)
        let sessions = e.sleepSessions
        #expect(sessions.count == 2) // the 10-minute sleep at 16:00 is under 15 minutes
        let s = try #require(sessions.first)
        #expect(s.recordDate == "2026-01-15")
        #expect(s.startSession == at(-3, 40)) // 20 min of awake touching the first sleep, bounded by no data
        #expect(s.stopSession == at(2, 15))
        #expect(s.tzOffset == 0)
        #expect(s.timeInBed == 16_500)         // 4 h 35 min
        #expect(s.totalSleepDuration == 12_600) // 1 h light + 1 h deep + 1 h REM + 30 min light
        #expect(s.timeToSleep == 1_200)
        #expect(s.timeToWakeUp == 900)
        #expect(s.totalSecsLight == 5_400)
        #expect(s.totalSecsDeep == 3_600)
        #expect(s.totalSecsREM == 3_600)
        #expect(s.totalSecsAwake == 2_700)      // 20 + 10 + 15 min
        #expect(s.wakeAfterSleepOnset == 600)   // the 10 minutes at midnight
        #expect(s.sleepEfficiency == 76)        // 12600 / 16500 = 76.4 %
        #expect(s.restorativeSleepPercent == 57) // 7200 / 12600 = 57.1 %
        #expect(s.awakePercent == 16)           // 2700 / 16500 = 16.4 %
        // awake->light, light->deep, deep->awake, (no data skipped) awake->REM, REM->light, light->awake
        #expect(s.totalAwakeToSleepTransitions == 2)
        #expect(s.totalLightToDeepTransitions == 1)
        #expect(s.totalSleepToAwakeTransitions == 2)
        #expect(s.totalREMToLightTransitions == 1)
        #expect(s.totalDeepToLightTransitions == 0)
        #expect(s.totalDeepToREMTransitions == 0)
        #expect(s.totalLightToREMTransitions == 0)
        #expect(s.totalREMToDeepTransitions == 0)
        #expect(s.isMainSleep)
        #expect(s.slots.count == 550) // 16500 s of 30 s samples, no-data ones included
        #expect(s.slots.first == SleepSlot(date: at(-3, 40), intervalSeconds: 30, sleepType: 1))
    }

    @Test func napIsNotTheMainSleepAndDaytimeAwakeIsNotAttached() throws {
        let e = try engine(Self.night + Self.afternoon)
        let nap = try #require(e.sleepSessions.last)
        #expect(nap.isMainSleep == false)
        #expect(nap.recordDate == "2026-01-15")
        #expect(nap.startSession == at(14, 0))  // the 2 h of awake before is longer than 60 min: daytime
        #expect(nap.stopSession == at(14, 25))  // 5 min of awake after, then no data: attached
        #expect(nap.totalSleepDuration == 1_200)
        #expect(nap.timeToSleep == 0)
        #expect(nap.timeToWakeUp == 300)
        #expect(nap.sleepEfficiency == 80)
        #expect(nap.restorativeSleepPercent == 0)
        #expect(nap.awakePercent == 20)
        #expect(nap.totalSleepToAwakeTransitions == 1)
        #expect(nap.totalAwakeToSleepTransitions == 0)
        #expect(e.day("2026-01-15")?.mainSleepStart == at(-3, 40))
    }

    @Test func sixtyMinutesOfAwakeKeepsOneSessionSixtyOneSplits() throws {
        let joined = stages(2, from: at(0, 0), to: at(1, 0)) + stages(1, from: at(1, 0), to: at(2, 0))
            + stages(2, from: at(2, 0), to: at(3, 0)) + stages(0, from: at(3, 0), to: at(3, 5))
        let one = try engine(joined).sleepSessions
        #expect(one.count == 1)
        #expect(one.first?.totalSleepDuration == 7_200)
        #expect(one.first?.wakeAfterSleepOnset == 3_600)
        #expect(one.first?.totalSleepToAwakeTransitions == 1)
        #expect(one.first?.totalAwakeToSleepTransitions == 1)

        let split = stages(2, from: at(0, 0), to: at(1, 0)) + stages(1, from: at(1, 0), to: at(2, 1))
            + stages(2, from: at(2, 1), to: at(3, 1)) + stages(0, from: at(3, 1), to: at(3, 5))
        let two = try engine(split).sleepSessions
        #expect(two.count == 2)
        #expect(two.map(\.startSession) == [at(0, 0), at(2, 1)])
        #expect(two.map(\.stopSession) == [at(1, 0), at(3, 1)]) // 61 min of awake is not attached to either
        #expect(two.map(\.isMainSleep) == [false, false])       // 1 h of sleep each: naps, not a night
    }

    @Test func noDataGapOfMoreThanAnHourSplits() throws {
        let samples = stages(3, from: at(0, 0), to: at(0, 30)) + stages(4, from: at(1, 31), to: at(2, 0))
        let sessions = try engine(samples).sleepSessions
        #expect(sessions.count == 2)
        #expect(sessions.map(\.totalSleepDuration) == [1_800, 1_740])
    }

    @Test func sessionBelongsToTheLocalDateOfItsStop() throws {
        // 23:00-23:40 on 14 Jan in UTC, but in +02:00 it runs 01:00-01:40 on 15 Jan
        let samples = stages(2, from: at(-1, 0), to: at(-1, 40))
        let utc = try engine(samples).sleepSessions
        #expect(utc.first?.recordDate == "2026-01-14")
        let plusTwo = try SummaryConfiguration(hrMax: 180, timeZone: SummaryConfiguration.timeZone(named: "+02:00"))
        let shifted = try engine(samples, configuration: plusTwo).sleepSessions
        #expect(shifted.first?.recordDate == "2026-01-15")
        #expect(shifted.first?.tzOffset == 7_200)
    }

    /// Minute samples over the night: 60 BPM, 00:30-01:00 alternating 50/52; breath 12 then 14.
    static var nightVitals: [Slot] {
        stride(from: at(-3, 40), to: at(2, 15), by: 60).map { t in
            let inDip = t >= at(0, 30) && t < at(1, 0)
            let bpm = inDip ? ((t - at(0, 30)) / 60 % 2 == 0 ? 50 : 52) : 60
            let breath: Double? = t >= at(-2, 0) && t < at(-1, 0) ? 12 : (t >= at(-1, 0) && t < at(0, 0) ? 14 : nil)
            return slot(t, 60, bpm: bpm, breath: breath, breathQ: breath == nil ? nil : 3)
        }
    }

    @Test func sleepRestingHeartRateAndBreathingRate() throws {
        let day = try #require(try engine(Self.night + Self.nightVitals).day("2026-01-15"))
        #expect(day.bpm.sleepRestingBPM == 51)   // the 30 minutes of 50/52
        #expect(day.breath.sleepBreathRate == 13) // one hour at 12, one at 14
        #expect(day.breath.averageBreath == nil)  // no breath sample starts on 15 Jan itself
        #expect(day.bpm.dailyRestingBPM == 51)
        // the evening before has no main sleep of its own
        #expect(try engine(Self.night + Self.nightVitals).day("2026-01-14")?.bpm.sleepRestingBPM == nil)
    }

    /// Beats from `start` alternating 1050/1000 ms for `seconds`, with one 1500 ms artefact after `artefactAfter` beats.
    static func alternatingBeats(start: Int64, seconds: Int64, artefactAfter: Int? = nil) -> [Beat] {
        var beats = [Beat(timeMs: start * 1000, rrMs: nil)]
        var t = start * 1000
        var i = 1
        while t + 1500 < (start + seconds) * 1000 {
            var rr = i % 2 == 1 ? 1050 : 1000
            if i == artefactAfter { rr = 1500 }
            t += Int64(rr)
            beats.append(Beat(timeMs: t, rrMs: rr))
            i += 1
        }
        return beats
    }

    @Test func nightlyHRVNeedsThreeValidWindows() throws {
        let beats = Self.alternatingBeats(start: at(-2, 0), seconds: 900, artefactAfter: 400)
        let hrv = try #require(try engine(Self.night, beats: beats).day("2026-01-15")?.sleepHRV)
        #expect(hrv.validWindows == 3)
        #expect(hrv.windowsWithBeats == 3)
        #expect(abs((hrv.rmssdMs ?? 0) - 50) < 1e-9) // every successive difference is +-50 ms
        // alternating 1000/1050 has a standard deviation of 25 ms (x sqrt(n/(n-1)) for the sample form)
        let sdnn = try #require(hrv.sdnnMs)
        #expect(sdnn > 25 && sdnn < 25.1)

        let two = Self.alternatingBeats(start: at(-2, 0), seconds: 600)
        let short = try #require(try engine(Self.night, beats: two).day("2026-01-15")?.sleepHRV)
        #expect(short.validWindows == 2)
        #expect(short.rmssdMs == nil)
        #expect(short.sdnnMs == nil)
    }

    @Test func aWindowWithTooManyDroppedBeatsIsNotValid() {
        // 10 beats, 3 of them out of range: 70 % kept < 80 %
        var beats: [Beat] = [Beat(timeMs: 0, rrMs: nil)]
        var t: Int64 = 0
        for i in 1...10 {
            let rr = i <= 3 ? 250 : 1000
            t += Int64(rr)
            beats.append(Beat(timeMs: t, rrMs: rr))
        }
        let n = HRVAnalysis.nightly(beats, start: 0, stop: 300)
        #expect(n.windowsWithBeats == 1)
        #expect(n.validWindows == 0)
    }
}
