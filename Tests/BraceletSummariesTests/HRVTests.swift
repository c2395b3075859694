import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// Hand-computed HRV over a short beat list with an artefact, an out-of-range beat and a time gap.
@Suite struct HRVTests {
    static let beats: [Beat] = [
        Beat(timeMs: 0, rrMs: nil),        // start of recording
        Beat(timeMs: 1000, rrMs: 1000),    // kept
        Beat(timeMs: 2020, rrMs: 1020),    // kept, difference +20
        Beat(timeMs: 3000, rrMs: 980),     // kept, difference -40
        Beat(timeMs: 4500, rrMs: 1500),    // 53 % above 980: dropped (malik20)
        Beat(timeMs: 5490, rrMs: 990),     // kept, no difference (a beat was dropped before it)
        Beat(timeMs: 5740, rrMs: 250),     // below 300 ms: dropped
        Beat(timeMs: 6740, rrMs: 1000),    // kept, no difference
        Beat(timeMs: 7800, rrMs: 1060),    // kept, difference +60
        Beat(timeMs: 20000, rrMs: 1000),   // 12.2 s after the previous beat: a gap, kept, no difference
        Beat(timeMs: 21100, rrMs: 1100),   // kept, difference +100
    ]

    @Test func malik20ByHand() {
        let r = HRVAnalysis.analyze(Self.beats)
        #expect(r.kept == 8)
        #expect(r.dropped == 2)
        #expect(r.meanNNMs == 1018.75) // 8150 / 8
        // squared deviations from 1018.75 sum to 11687.5
        #expect(abs((r.sdnnMs ?? 0) - (11_687.5 / 7).squareRoot()) < 1e-9)
        // differences 20, -40, 60, 100: (400 + 1600 + 3600 + 10000) / 4 = 3900
        #expect(abs((r.rmssdMs ?? 0) - 3900.0.squareRoot()) < 1e-9)
        #expect(r.pnn50 == 50) // 60 and 100 exceed 50 ms
        #expect(abs((r.meanHR ?? 0) - 60_000 / 1018.75) < 1e-9)
    }

    @Test func filterNoneKeepsTheArtefactButStillChecksTheRange() {
        let r = HRVAnalysis.analyze(Self.beats, filter: .none)
        #expect(r.kept == 9)
        #expect(r.dropped == 1)
        // differences 20, -40, 520, -510, 60, 100
        #expect(abs((r.rmssdMs ?? 0) - (546_100.0 / 6).squareRoot()) < 1e-9)
        #expect(abs((r.pnn50 ?? 0) - 400.0 / 6) < 1e-9)
    }

    @Test func arrivalOrderAndDuplicatesDoNotMatter() {
        let shuffled = (Self.beats + Self.beats).reversed()
        #expect(HRVAnalysis.analyze(Array(shuffled)) == HRVAnalysis.analyze(Self.beats))
    }

    @Test func exactlyTwentyPercentIsKept() {
        let beats = [Beat(timeMs: 1000, rrMs: 1000), Beat(timeMs: 2200, rrMs: 1200), Beat(timeMs: 3401, rrMs: 1201)]
        let r = HRVAnalysis.analyze(beats)
        #expect(r.kept == 3) // 1200 is exactly 20 % above 1000; 1201 is 0.1 % above 1200
        let over = HRVAnalysis.analyze([Beat(timeMs: 1000, rrMs: 1000), Beat(timeMs: 2201, rrMs: 1201)])
        #expect(over.kept == 1)
        #expect(over.dropped == 1)
    }

    @Test func nothingToComputeGivesNull() throws {
        let r = HRVAnalysis.analyze([Beat(timeMs: 0, rrMs: nil), Beat(timeMs: 1000, rrMs: 1000)])
        #expect(r.kept == 1)
        #expect(r.sdnnMs == nil)
        #expect(r.rmssdMs == nil)
        #expect(r.pnn50 == nil)
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        #expect(json.contains("\"sdnn_ms\":null"))
        #expect(json.contains("\"rmssd_ms\":null"))
        #expect(json.contains("\"pnn50\":null"))
        #expect(json.contains("\"mean_nn_ms\":1000"))
        #expect(json.contains("\"mean_hr\":60"))
        #expect(json.contains("\"kept\":1"))
        #expect(json.contains("\"dropped\":0"))
    }
}
