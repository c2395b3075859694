import Testing
import BraceletProtocol
import BraceletTransport
@testable import BraceletCapture

/// A session that announces `files` metrics files of about 16 MiB and sends, for each, one 10-byte
/// packet placed near its end: the shape of a capture that once made recovery allocate every
/// announced size (2 GB resident from 11.7 KB of capture).
private func announcingSession(files: Int) -> [UInt8] {
    var w = ATTCaptureWriter(datalink: .hciUART)
    w.connect(unixMicros: t0)
    for i in 0..<files {
        let size = UInt32(16 << 20) - 1 - UInt32(i)
        let t = t0 + Int64(i) * 1_000
        w.append(.writeRequest(handle: 0x0010, value: Command.fileSize(.metrics).encode()), direction: .sent, unixMicros: t)
        w.append(.handleValueNotification(handle: 0x0012, value: Response.fileSize(size: size, storageUsedPercent: 1).encode()),
                 direction: .received, unixMicros: t + 100)
        let packet = DataPacket(sequence: 0, offset: size - 10, isLast: true, payload: [UInt8](repeating: 7, count: 10))
        w.append(.handleValueNotification(handle: 0x0014, value: packet.encode()), direction: .received, unixMicros: t + 200)
    }
    return w.bytes
}

private func recover(_ bytes: [UInt8]) throws -> TransferRecovery {
    let reader = try ATTCaptureReader(bytes: bytes)
    var recovery = TransferRecovery()
    var events = reader.makeIterator()
    while let event = events.next() { recovery.consume(event) }
    return recovery
}

@Suite struct TransferRecoveryBoundsTests {
    @Test func announcedSizesCostOnlyTheBytesThatArrived() throws {
        var recovery = try recover(announcingSession(files: 300))
        // 300 announced files of 16 MiB; 10 bytes of each arrived.
        #expect(recovery.heldBytes == 300 * 10)
        recovery.finish()
        let incomplete = recovery.faults.filter { if case .transferIncomplete(_, 0, _) = $0 { true } else { false } }
        #expect(incomplete.count == 300)
        #expect(recovery.files.isEmpty)
    }

    @Test func packetsAfterAGapCompleteTheFileWhenTheGapIsFilled() throws {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.connect(unixMicros: t0)
        w.append(.writeRequest(handle: 0x0010, value: Command.fileSize(.beats).encode()), direction: .sent, unixMicros: t0)
        w.append(.handleValueNotification(handle: 0x0012, value: Response.fileSize(size: 30, storageUsedPercent: 1).encode()),
                 direction: .received, unixMicros: t0 + 1)
        let content = (0..<30).map { UInt8($0) }
        // Third, first, second (overlapping the third by two bytes), then the first again.
        for (offset, length) in [(20, 10), (0, 10), (10, 12), (0, 10)] {
            let packet = DataPacket(sequence: 0, offset: UInt32(offset), isLast: false, payload: Array(content[offset..<(offset + length)]))
            w.append(.handleValueNotification(handle: 0x0014, value: packet.encode()), direction: .received, unixMicros: t0 + 2)
        }
        var recovery = try recover(w.bytes)
        recovery.finish()
        #expect(recovery.files.map(\.bytes) == [content])
        #expect(recovery.files.first?.isComplete == true)
        let repeated = recovery.faults.filter { if case .repeatedPacket = $0 { true } else { false } }
        #expect(repeated.count == 3)
    }
}
