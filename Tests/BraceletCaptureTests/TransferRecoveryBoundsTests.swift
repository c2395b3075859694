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

    /// A file of `size` bytes announced and sent in order in packets of the largest payload, with
    /// the data handle learnt from the first packet (later packets take the in-place path).
    private func orderedSession(size: Int, damage: ((inout [UInt8]) -> Void)? = nil, damagedPacket: Int = -1) -> (bytes: [UInt8], content: [UInt8]) {
        var w = ATTCaptureWriter(datalink: .hciUART)
        w.connect(unixMicros: t0)
        w.append(.writeRequest(handle: 0x0010, value: Command.fileSize(.beats).encode()), direction: .sent, unixMicros: t0)
        w.append(.handleValueNotification(handle: 0x0012, value: Response.fileSize(size: UInt32(size), storageUsedPercent: 1).encode()),
                 direction: .received, unixMicros: t0 + 1)
        let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        for (index, offset) in stride(from: 0, to: size, by: DataPacket.maximumPayload).enumerated() {
            let end = min(size, offset + DataPacket.maximumPayload)
            var value = DataPacket(sequence: UInt16(truncatingIfNeeded: index), offset: UInt32(offset), isLast: end == size,
                                   payload: Array(content[offset..<end])).encode()
            if index == damagedPacket, let damage { damage(&value) }
            w.append(.handleValueNotification(handle: 0x0014, value: value), direction: .received, unixMicros: t0 + 2)
        }
        return (w.bytes, content)
    }

    @Test func aFileOverAMebibyteGetsItsAnnouncedSizeOnceAndArrivesWhole() throws {
        // Growing by doubling would leave 2 MiB of capacity for 1.5 MiB (and hold 1 + 2 MiB while it doubles).
        let size = 3 << 19
        let (bytes, content) = orderedSession(size: size)
        var recovery = try recover(bytes)
        recovery.finish()
        let file = try #require(recovery.files.first)
        #expect(file.bytes == content)
        #expect(file.bytes.capacity >= size && file.bytes.capacity < size + (64 << 10))
        #expect(recovery.faults.isEmpty)
    }

    @Test func aPacketWithAReservedFlagOrAnOverlongPayloadIsCorruptEvenWithAGoodCRC() throws {
        /// Sets `flags` and, when given, the length field (padding the payload), then fixes the CRC.
        func rewrite(flags: UInt8, length: Int?) -> (inout [UInt8]) -> Void {
            { value in
                var frame = Array(value.dropLast(2))
                frame[7] = flags
                if let length {
                    frame += [UInt8](repeating: 0, count: length - Int(frame[6]))
                    frame[6] = UInt8(length)
                }
                value = frame + [UInt8(CRC16.checksum(frame) & 0xFF), UInt8(CRC16.checksum(frame) >> 8)]
            }
        }
        for (flags, length, field) in [(UInt8(0x02), nil as Int?, "flags"), (0x00, 200, "payload length")] {
            let (bytes, content) = orderedSession(size: 1_000, damage: rewrite(flags: flags, length: length), damagedPacket: 3)
            var recovery = try recover(bytes)
            recovery.finish()
            let corrupt = recovery.faults.compactMap { if case let .corruptPacket(_, reason) = $0 { reason } else { nil } }
            #expect(corrupt.count == 1 && corrupt.first?.contains(field) == true, "\(corrupt)")
            // The bytes before the damaged packet are delivered; nothing after it is taken on trust.
            #expect(recovery.files.first?.bytes == Array(content[0..<(3 * DataPacket.maximumPayload)]))
        }
    }
}
