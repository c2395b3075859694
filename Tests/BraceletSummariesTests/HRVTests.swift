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

/// Intervals timed in steps of 1/64 s, as Empatica's E4 writes them, and every interval not used
/// counted with its reason.
@Suite struct FractionalIntervalTests {
    /// 570 beats of an E4-style export: intervals of n x 15.625 ms (7 in 8 of them fractional) that
    /// swing slowly between 750 and 950 ms.
    static func e4Export() -> (text: String, intervals: [Double]) {
        var lines = ["timestamp_ms,rr_ms"]
        var intervals: [Double] = []
        var time = 1_768_435_200_000.0
        for i in 0..<570 {
            let steps = 54 + (i % 13 < 7 ? i % 13 : 13 - i % 13) + (i % 3 == 0 ? 1 : 0)  // 54...61 steps
            let rr = Double(steps) * 15.625
            time += rr
            intervals.append(rr)
            lines.append("\(Int64(time.rounded())),\(rr)")
        }
        return (lines.joined(separator: "\n") + "\n", intervals)
    }

    @Test func everyFractionalIntervalOfAnE4ExportIsUsed() throws {
        let (text, intervals) = Self.e4Export()
        #expect(intervals.filter { $0 != $0.rounded() }.count > 400)
        let input = try CSVSampleReader.read(text)
        #expect(input.diagnostics.isEmpty, "\(input.diagnostics)")
        #expect(input.beats.count == 570 && input.unreadableIntervals == 0)
        #expect(input.beats.prefix(4).map(\.rrMs) == [859, 859, 875, 906])  // 859.375, 859.375, 875, 906.25
        #expect(input.beats.map(\.rrMs) == intervals.map { Int($0.rounded()) })

        let result = HRVAnalysis.analyze(input.beats)
        #expect(result.kept == 570 && result.dropped == 0 && result.droppedBy == HRVDrops())
        // RMSSD of the intervals rounded to the millisecond, computed here the plain way.
        let rounded = intervals.map { $0.rounded() }
        let squares = zip(rounded.dropFirst(), rounded).map { ($0 - $1) * ($0 - $1) }
        let rmssd = (squares.reduce(0, +) / Double(squares.count)).squareRoot()
        #expect(abs((result.rmssdMs ?? 0) - rmssd) < 1e-9)
        #expect(rmssd > 10, "the swing makes successive differences of 15-16 ms")
    }

    @Test func everyIntervalNotUsedIsCountedWithItsReason() throws {
        let text = """
        timestamp_ms,rr_ms
        1768435201000,1000
        1768435201984,984.375
        1768435202984,abc
        1768435203984,1000
        1768435204984,1000.5
        1768435205984,1000
        1768435205984,990
        1768435206234,250
        1768435207234,1000
        1768435208734,1500
        1768435209734,1000
        not-a-time,1000
        """
        let input = try CSVSampleReader.read(text)
        #expect(input.unreadableIntervals == 2)  // 'abc', and the row without a timestamp
        let result = HRVAnalysis.analyze(input.beats, unreadable: input.unreadableIntervals)
        #expect(result.droppedBy.unreadable == 2)
        #expect(result.droppedBy.sameTime == 1)  // 990 at the time of 1000
        #expect(result.droppedBy.outOfRange == 1)  // 250
        #expect(result.droppedBy.artefact == 1)  // 1500, 50 % above 1000
        #expect(result.dropped == 5)
        // Kept: 1000, 984, 1000 (after the unreadable one: no difference across it), 1001, 1000,
        // 1000 (after the short one: none), 1000 (after the artefact: none).
        #expect(result.kept == 7)
        // Differences only between adjacent kept intervals: -16, +1, -1.
        #expect(abs((result.rmssdMs ?? 0) - ((256.0 + 1 + 1) / 3).squareRoot()) < 1e-9)
        let json = String(decoding: try CanonicalJSON.bytes(of: result, what: "hrv"), as: UTF8.self)
        #expect(json.contains(#""dropped":5,"dropped_by":{"artefact":1,"out_of_range":1,"same_time":1,"unreadable":2}"#), "\(json)")
        #expect(SummaryTableRenderer.render(result).contains("dropped   5 (unreadable 2, same time 1, out of range 1, artefact 1)"))
    }
}
