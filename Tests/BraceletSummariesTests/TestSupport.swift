import BraceletDecoder
import Foundation
@testable import BraceletSummaries

/// 2026-01-15T00:00:00Z.
let jan15: Int64 = 1_768_435_200
/// A fixed "now" far after every test sample.
let testNow: Int64 = 1_900_000_000

/// UTC time of `hh:mm[:ss]` on 2026-01-15 (negative hours reach back into 2026-01-14).
func at(_ hour: Int, _ minute: Int, _ second: Int = 0, day base: Int64 = jan15) -> Int64 {
    base + Int64(hour * 3600 + minute * 60 + second)
}

/// A slot with the given fields set.
func slot(_ start: Int64, _ interval: Int32 = 60, bpm: Int? = nil, q: Int? = 4, wearing: Int? = 4,
          breath: Double? = nil, breathQ: Int? = nil, steps: Int? = nil, activity: Int? = nil, speed: Double? = nil,
          energy: Int? = nil, active: Int? = nil, skin: Double? = nil, core: Double? = nil, spo2: Int? = nil,
          spo2Q: Int? = nil, eda: Double? = nil, stage: Int? = nil) -> Slot {
    var s = Slot(start: start, intervalSeconds: interval)
    s.bpm = bpm
    s.bpmQuality = bpm == nil ? nil : q
    s.wearing = wearing
    s.breath = breath; s.breathQuality = breathQ
    s.steps = steps; s.activity = activity; s.speed = speed
    s.energyCal = energy; s.activeCal = active
    s.skinTempC = skin; s.coreTempC = core
    s.spo2 = spo2; s.spo2Quality = spo2Q; s.edaMicrosiemens = eda
    s.sleepStage = stage
    return s
}

/// Stage samples of `stage` every `interval` seconds covering [from, to).
func stages(_ stage: Int, from: Int64, to: Int64, interval: Int32 = 30) -> [Slot] {
    stride(from: from, to: to, by: Int(interval)).map { slot($0, interval, wearing: 4, stage: stage) }
}

/// Configuration with hrMax 180 (T50 90, T60 108, T70 126, T80 144, T90 162), 170 cm, UTC.
func utcConfiguration(slotSeconds: Int = 60) throws -> SummaryConfiguration {
    try SummaryConfiguration(summarySlotSeconds: slotSeconds, hrMax: 180, heightCm: 170,
                             timeZone: TimeZone(identifier: "UTC") ?? .current)
}

/// An engine fed once with `slots` and `beats`.
func engine(_ slots: [Slot], beats: [Beat] = [], configuration: SummaryConfiguration? = nil) throws -> SummaryEngine {
    var e = SummaryEngine(configuration: try configuration ?? utcConfiguration())
    e.add(slots: slots, beats: beats, now: testNow)
    return e
}

