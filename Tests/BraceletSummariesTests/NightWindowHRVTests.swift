import BraceletDecoder
import Testing
@testable import BraceletSummaries

/// The sleep HRV of a device that does not stage sleep (a chest strap): the night window 00:00-06:00
/// local, when it was worn then with a heart rate.
@Suite struct NightWindowHRVTests {
    /// Beats every second from `from` to `to` (s), their intervals alternating 980/1020 ms: RMSSD 40 ms.
    static func beats(from: Int64, to: Int64) -> [Beat] {
        var out: [Beat] = []
        var t = from * 1000
        var i = 0
        while t < to * 1000 {
            let rr = i % 2 == 0 ? 980 : 1020
            t += Int64(rr)
            out.append(Beat(timeMs: t, rrMs: out.isEmpty ? nil : rr))
            i += 1
        }
        return out
    }

    /// 1-second strap slots (no sleep stage) every `step` seconds in [from, to).
    static func strap(from: Int64, to: Int64, step: Int = 60) -> [Slot] {
        stride(from: from, to: to, by: step).map { slot($0, 1, bpm: 60, q: 4, wearing: 4) }
    }

    @Test func aStrapWornAtNightHasTheNightsHRV() throws {
        let e = try engine(Self.strap(from: at(0, 0), to: at(8, 0)), beats: Self.beats(from: at(0, 0), to: at(8, 0)))
        let day = try #require(e.day("2026-01-15"))
        let hrv = try #require(day.sleepHRV)
        #expect(hrv.validWindows == 72)  // six hours of 5-minute windows; the beats after 06:00 are not in it
        #expect(abs((hrv.rmssdMs ?? 0) - 40) < 1e-9)
        #expect(day.mainSleepStart == nil)
    }

    @Test func notWornAtNightOrStagedMeansNoNightWindow() throws {
        // Worn only from 07:00: no night.
        let day = try engine(Self.strap(from: at(7, 0), to: at(9, 0)), beats: Self.beats(from: at(7, 0), to: at(9, 0))).day("2026-01-15")
        #expect(day?.sleepHRV == nil)
        // Contact lost all night (not worn): no night.
        let unworn = Self.strap(from: at(0, 0), to: at(6, 0)).map { var s = $0; s.wearing = 0; return s }
        #expect(try engine(unworn, beats: Self.beats(from: at(0, 0), to: at(6, 0))).day("2026-01-15")?.sleepHRV == nil)
        // A bracelet's samples carry stages: its sleep HRV is its main sleep's, never a window's.
        let awake = stages(1, from: at(0, 0), to: at(6, 0))
        #expect(try engine(awake, beats: Self.beats(from: at(0, 0), to: at(6, 0))).day("2026-01-15")?.sleepHRV == nil)
    }

    /// On the DST nights of Europe/Amsterdam the window still ends at 06:00 on the local clock:
    /// 5 hours after midnight when the clocks go forward (2026-03-29), 7 when they go back
    /// (2026-10-25), never a fixed 6 hours that would end it at 07:00 or 05:00 local.
    @Test func theNightEndsAtLocalSixOnDSTNights() throws {
        let amsterdam = try DaylightSavingTests.amsterdam()
        for (date, midnight, sixLocal, hours) in [("2026-03-29", Int64(1_774_738_800), Int64(1_774_756_800), 5),  // 23:00Z .. 04:00Z
                                                  ("2026-10-25", Int64(1_792_879_200), Int64(1_792_904_400), 7)] { // 22:00Z .. 05:00Z
            #expect(sixLocal - midnight == Int64(hours) * 3600)
            let e = try engine(Self.strap(from: midnight, to: midnight + 9 * 3600),
                               beats: Self.beats(from: midnight, to: midnight + 9 * 3600), configuration: amsterdam)
            let day = try #require(e.day(date))
            #expect(day.dayStart == midnight)
            let number = try #require(LocalDate(iso: date)).dayNumber
            let window = try #require(e.result(ofDay: number)?.nightWindow)
            #expect(window.start == midnight && window.stop == sixLocal, "\(date): \(window)")
            // Every 5-minute window of the night is in the HRV, and none after 06:00 local.
            #expect(day.sleepHRV?.validWindows == hours * 12, "\(date)")
        }
    }

    @Test func beatsArrivingLaterRecomputeTheNight() throws {
        var e = try engine(Self.strap(from: at(0, 0), to: at(6, 0)))
        #expect(e.day("2026-01-15")?.sleepHRV?.validWindows == 0)
        e.add(slots: [], beats: Self.beats(from: at(1, 0), to: at(2, 0)), now: testNow)
        #expect(e.lastRecomputedDates == ["2026-01-15"])
        #expect(e.day("2026-01-15")?.sleepHRV?.validWindows == 12)
        var whole = e
        whole.recomputeAll()
        #expect(whole.days == e.days)
    }
}
