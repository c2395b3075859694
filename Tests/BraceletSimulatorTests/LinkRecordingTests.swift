import BraceletCapture
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Testing

/// Keeps the capture writer the session's tap appends to.
final class RecordingBox {
    var writer = ATTCaptureWriter(datalink: .hciUART, maxACLPayload: 251)
    var clock: Int64 = 1_780_000_000_000_000
    func tick() -> Int64 { clock += 1_000; return clock }
}

@Suite("Live link: a recorded session replays to what was stored")
struct LinkRecordingTests {
    @Test func recordedSessionWithFaultsReplaysToTheCommittedFiles() throws {
        let served = try ServedBracelet(model: .v2, faults: ["lose-packet:10", "repeat-packet:20", "drop-link-at:30000"])
        let truth = served.groundTruth()
        let box = RecordingBox()
        var c = served.configuration()
        c.liveDuration = .milliseconds(1_600)
        c.tap = { direction, pdu in box.writer.append(pdu, direction: direction == .sent ? .sent : .received, unixMicros: box.tick()) }
        c.onLinkState = { up in up ? box.writer.connect(unixMicros: box.tick()) : box.writer.disconnect(unixMicros: box.tick()) }
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log), configuration: c)
        let report = try session.run()
        #expect(report.connections == 2)
        let replayed = try ReplayedCapture.load(bytes: box.writer.bytes)
        let metricsTruth = try #require(truth.first { $0.0 == .metrics }?.1)
        let beatsTruth = try #require(truth.first { $0.0 == .beats }?.1)
        let metricsHeader = try metricsTruth.withUnsafeBytes { try FileHeader(bytes: $0) }
        let beatsHeader = try beatsTruth.withUnsafeBytes { try FileHeader(bytes: $0) }
        #expect(replayed.metricsFiles.count == 1)
        #expect(replayed.metricsFiles.first?.slots.count == metricsHeader.recordCount)
        #expect(replayed.metricsFiles.first?.slots.first?.start == metricsHeader.baseTime)
        #expect(replayed.metricsFiles.first?.faults.isEmpty == true)
        #expect(replayed.beatsFiles.count == 1)
        #expect(replayed.beatsFiles.first?.beats.count == beatsHeader.recordCount)
        #expect(replayed.heartRates.count == report.heartRateNotifications)
        #expect(report.heartRateNotifications >= 1)
    }
}
