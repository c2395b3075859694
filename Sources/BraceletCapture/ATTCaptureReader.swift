import BraceletProtocol
import BraceletTransport

/// Turns a btsnoop capture into ATT PDUs: classifies HCI packets (H4 types for 1001/1002, monitor
/// opcodes for 2001), reassembles ACL fragments per connection handle and direction into L2CAP
/// frames, and yields the frames on the ATT channel (CID 0x0004), together with link up/down events
/// and faults, in capture order.
///
/// ```swift
/// let reader = try ATTCaptureReader(contentsOfFile: path)
/// var events = reader.makeIterator()
/// while let event = events.next() { ... }
/// print(events.statistics.attPDUs, events.faults)
/// ```
/// Nothing is allocated per record when frames fit in one ACL packet; fragmented frames are
/// assembled in one reusable buffer per connection and direction.
public struct ATTCaptureReader: Sequence, Sendable {
    /// The underlying btsnoop reader (file or file buffer, and datalink).
    public let btsnoop: BtsnoopReader
    /// At most this many faults are kept in ``Iterator/faults``; all are counted and all are yielded.
    public var faultListLimit = 1000

    /// Reads a capture held in memory; throws if the btsnoop header is bad.
    public init(bytes: [UInt8]) throws(BtsnoopError) {
        btsnoop = try BtsnoopReader(bytes: bytes)
    }

    /// Opens the capture file at `path`, which is read as it is iterated; throws if it cannot be
    /// opened or its header is bad.
    public init(contentsOfFile path: String) throws(BtsnoopError) {
        btsnoop = try BtsnoopReader(contentsOfFile: path)
    }

    /// The L2CAP channel that carries ATT.
    public static let attChannel: UInt16 = 0x0004

    /// Starts at the first record.
    public func makeIterator() -> Iterator { Iterator(records: btsnoop.makeIterator(), datalink: btsnoop.datalink, faultListLimit: faultListLimit) }

    /// Reads the whole capture and returns every ATT event, the statistics and the faults.
    /// Convenient for small captures and tests; stream with the iterator for large ones.
    public func readAll() -> (events: [ATTEvent], links: [CaptureEvent], statistics: CaptureStatistics, faults: [CaptureFault]) {
        var it = makeIterator()
        var events: [ATTEvent] = []
        var links: [CaptureEvent] = []
        while let e = it.next() {
            switch e {
            case .att(let a): events.append(ATTEvent(timestampMicros: a.timestampMicros, direction: a.direction,
                                                      connectionHandle: a.connectionHandle, adapterIndex: a.adapterIndex,
                                                      position: a.position, pdu: ArraySlice(Array(a.pdu))))
            case .connected, .disconnected: links.append(e)
            case .fault: break
            }
        }
        return (events, links, it.statistics, it.faults)
    }

    /// Walks a capture event by event. After `next()` returns `nil`, ``statistics`` and ``faults``
    /// describe the whole capture.
    public struct Iterator: IteratorProtocol, Sendable {
        var records: BtsnoopReader.Iterator
        /// The btsnoop iterator's buffer; packets are addressed by offsets into it (no slice per record).
        private var bytes: [UInt8] {
            @inline(__always) get { records.bytes }
        }
        let datalink: BtsnoopDatalink
        let faultListLimit: Int
        var frames: [FrameInProgress] = []
        var pending: [CaptureEvent] = []
        var pendingIndex = 0
        var finished = false
        /// Counts so far (complete once `next()` returned `nil`).
        public private(set) var statistics = CaptureStatistics()
        /// Faults so far, in order (at most the reader's ``ATTCaptureReader/faultListLimit``).
        public private(set) var faults: [CaptureFault] = []

        init(records: BtsnoopReader.Iterator, datalink: BtsnoopDatalink, faultListLimit: Int) {
            self.records = records
            self.datalink = datalink
            self.faultListLimit = faultListLimit
            statistics.bytesRead = BtsnoopReader.headerSize
        }

        /// The next ATT PDU, link event or fault; `nil` at the end of the capture.
        public mutating func next() -> CaptureEvent? {
            while true {
                if pendingIndex < pending.count { return takePending() }
                if finished { return nil }
                let record: RecordHeader
                do {
                    guard let r = try records.nextHeader() else { finishCapture(); continue }
                    record = r
                } catch {
                    emit(fault(.file(error)))
                    finishCapture()
                    continue
                }
                statistics.records += 1
                statistics.bytesRead += BtsnoopReader.recordHeaderSize + record.packetEnd - record.packetStart
                statistics.capturedDrops = record.cumulativeDrops
                if let e = handle(record) { return e }
            }
        }

        // MARK: - Per record

        @inline(__always)
        private func u16(_ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }

        /// Processes one record; returns its first event directly and queues any further ones.
        private mutating func handle(_ record: RecordHeader) -> CaptureEvent? {
            let position = CapturePosition(recordIndex: record.index, byteOffset: record.offset)
            var start = record.packetStart
            let end = record.packetEnd
            let time = BtsnoopTime.unixMicros(fromBtsnoop: record.timestamp)
            let type: HCIPacketType
            let direction: CaptureDirection
            var adapter: UInt16 = 0
            switch datalink {
            case .hciUART:
                guard start < end else { return fault(.emptyPacket(at: position)) }
                guard let pt = HCIPacketType(rawValue: bytes[start]) else {
                    return fault(.unknownPacketType(bytes[start], at: position))
                }
                type = pt
                start += 1
                direction = record.flags & 1 != 0 ? .received : .sent
            case .hciUnencapsulated:
                direction = record.flags & 1 != 0 ? .received : .sent
                if record.flags & 2 != 0 { type = direction == .sent ? .command : .event } else { type = .acl }
            case .linuxMonitor:
                adapter = UInt16(truncatingIfNeeded: record.flags >> 16)
                switch UInt16(truncatingIfNeeded: record.flags) {
                case MonitorOpcode.command: type = .command; direction = .sent
                case MonitorOpcode.event: type = .event; direction = .received
                case MonitorOpcode.aclSent: type = .acl; direction = .sent
                case MonitorOpcode.aclReceived: type = .acl; direction = .received
                case MonitorOpcode.scoSent, MonitorOpcode.isoSent: type = .sco; direction = .sent
                case MonitorOpcode.scoReceived, MonitorOpcode.isoReceived: type = .sco; direction = .received
                default:
                    statistics.ignoredMonitorRecords += 1
                    return nil
                }
            }
            switch type {
            case .acl:
                statistics.aclPackets += 1
                return handleACL(start, end, direction: direction, position: position, time: time, adapter: adapter)
            case .event:
                statistics.eventPackets += 1
                return handleEvent(start, end, position: position, time: time, adapter: adapter)
            case .command:
                statistics.commandPackets += 1
                return nil
            case .sco, .iso:
                statistics.otherDataPackets += 1
                return nil
            }
        }

        /// An HCI event in `bytes[s..<end]`: event code, parameter length, parameters.
        private mutating func handleEvent(_ s: Int, _ end: Int, position: CapturePosition, time: Int64,
                                          adapter: UInt16) -> CaptureEvent? {
            let count = end - s
            guard count >= 2 else { return fault(.eventLengthMismatch(at: position, declared: nil, actual: count)) }
            let code = bytes[s]
            let declared = Int(bytes[s + 1])
            guard declared == count - 2 else {
                return fault(.eventLengthMismatch(at: position, declared: declared, actual: count - 2))
            }
            let ps = s + 2
            let paramCount = declared
            switch code {
            case 0x05 where paramCount >= 4 && bytes[ps] == 0:  // Disconnection Complete, status success
                let handle = u16(ps + 1) & 0x0FFF
                statistics.disconnections += 1
                // Frames cut off by the link drop are faults, reported before the disconnection.
                for i in frames.indices.reversed() where frames[i].handle == handle && frames[i].adapter == adapter {
                    if frames[i].active {
                        emit(fault(.incompleteFrame(at: position, connectionHandle: handle, direction: frames[i].direction,
                                                    frameStart: frames[i].start, expectedBytes: frames[i].expected ?? 0,
                                                    receivedBytes: frames[i].buffer.count)))
                    }
                    frames.remove(at: i)
                }
                emit(.disconnected(LinkEvent(timestampMicros: time, connectionHandle: handle, adapterIndex: adapter,
                                             position: position, peerAddress: nil, reason: bytes[ps + 3])))
                return takePending()
            case 0x3E where paramCount >= 12 && (bytes[ps] == 0x01 || bytes[ps] == 0x0A) && bytes[ps + 1] == 0:
                // LE (Enhanced) Connection Complete, status success:
                // subevent, status, handle(2), role, peer address type, peer address(6, little-endian), ...
                let handle = u16(ps + 2) & 0x0FFF
                let address = hexString(bytes[(ps + 6)..<(ps + 12)].reversed(), uppercase: true, separator: ":")
                statistics.connections += 1
                return .connected(LinkEvent(timestampMicros: time, connectionHandle: handle, adapterIndex: adapter,
                                            position: position, peerAddress: address, reason: nil))
            default:
                return nil
            }
        }

        /// An ACL packet in `bytes[s..<end]`: handle and flags, data length, data.
        private mutating func handleACL(_ s: Int, _ end: Int, direction: CaptureDirection, position: CapturePosition,
                                        time: Int64, adapter: UInt16) -> CaptureEvent? {
            let count = end - s
            guard count >= 4 else { return fault(.aclLengthMismatch(at: position, declared: nil, actual: count)) }
            let handleAndFlags = u16(s)
            let declared = Int(u16(s + 2))
            guard declared == count - 4 else {
                return fault(.aclLengthMismatch(at: position, declared: declared, actual: count - 4))
            }
            let handle = handleAndFlags & 0x0FFF
            let boundary = (handleAndFlags >> 12) & 0b11
            let ds = s + 4
            let dataCount = declared
            statistics.noteConnectionHandle(handle)

            let slot = frameSlot(handle: handle, direction: direction, adapter: adapter)
            if boundary == 0b01 {
                // Continuation fragment.
                guard let i = slot, frames[i].active else {
                    return fault(.continuationWithoutStart(at: position, connectionHandle: handle, direction: direction))
                }
                frames[i].buffer.append(contentsOf: bytes[ds..<end])
                return advance(frame: i, position: position, time: time)
            }
            // Start fragment (0b00 host->controller non-flushable, 0b10 flushable, 0b11 complete PDU).
            var missing: CaptureEvent? = nil
            if let i = slot, frames[i].active {
                frames[i].active = false
                missing = fault(.aclFragmentMissing(at: position, connectionHandle: handle, direction: direction,
                                                    frameStart: frames[i].start, expectedBytes: frames[i].expected ?? 0,
                                                    receivedBytes: frames[i].buffer.count))
            }
            var result: CaptureEvent? = nil
            let total = dataCount >= 4 ? 4 + Int(u16(ds)) : Int.max
            if total == dataCount {
                // Fast path: the whole frame is in this packet; deliver a slice of the file buffer.
                statistics.l2capFrames += 1
                if u16(ds + 2) == ATTCaptureReader.attChannel {
                    result = deliverATT(bytes[(ds + 4)..<end], handle: handle, direction: direction, adapter: adapter,
                                        position: position, time: time)
                } else {
                    statistics.nonATTFrames += 1
                }
            } else if total < dataCount {
                result = fault(.l2capLengthMismatch(at: position, connectionHandle: handle, direction: direction,
                                                    frameStart: position, expectedBytes: total, receivedBytes: dataCount))
            } else {
                let i = slot ?? newFrameSlot(handle: handle, direction: direction, adapter: adapter)
                frames[i].active = true
                frames[i].start = position
                frames[i].buffer.removeAll(keepingCapacity: true)
                frames[i].buffer.append(contentsOf: bytes[ds..<end])
                frames[i].expected = nil
                result = advance(frame: i, position: position, time: time)
            }
            guard let first = missing else { return result }
            if let r = result { emit(r) }
            return first
        }

        /// After bytes were added to a frame: learn its length once 4 bytes are in, deliver it when
        /// complete, or report that it overran its declared length.
        private mutating func advance(frame i: Int, position: CapturePosition, time: Int64) -> CaptureEvent? {
            let count = frames[i].buffer.count
            if frames[i].expected == nil, count >= 4 {
                frames[i].expected = 4 + Int(UInt16(frames[i].buffer[0]) | UInt16(frames[i].buffer[1]) << 8)
            }
            guard let expected = frames[i].expected, count >= expected else { return nil }
            frames[i].active = false
            if count > expected {
                return fault(.l2capLengthMismatch(at: position, connectionHandle: frames[i].handle,
                                                  direction: frames[i].direction, frameStart: frames[i].start,
                                                  expectedBytes: expected, receivedBytes: count))
            }
            statistics.l2capFrames += 1
            let cid = UInt16(frames[i].buffer[2]) | UInt16(frames[i].buffer[3]) << 8
            guard cid == ATTCaptureReader.attChannel else {
                statistics.nonATTFrames += 1
                return nil
            }
            return deliverATT(frames[i].buffer[4...], handle: frames[i].handle, direction: frames[i].direction,
                              adapter: frames[i].adapter, position: position, time: time)
        }

        /// A complete ATT PDU: count it and wrap it as an event.
        private mutating func deliverATT(_ pdu: ArraySlice<UInt8>, handle: UInt16, direction: CaptureDirection,
                                         adapter: UInt16, position: CapturePosition, time: Int64) -> CaptureEvent {
            guard let op = pdu.first else {
                return fault(.emptyATTPDU(at: position, connectionHandle: handle, direction: direction))
            }
            statistics.attPDUs += 1
            if pdu.count >= 3 {
                let s = pdu.startIndex
                switch op {
                case 0x0A, 0x0C, 0x12, 0x16, 0x52, 0xD2, 0x1B, 0x1D:
                    statistics.noteAttributeHandle(UInt16(pdu[s + 1]) | UInt16(pdu[s + 2]) << 8)
                case 0x01 where pdu.count >= 4:
                    statistics.noteAttributeHandle(UInt16(pdu[s + 2]) | UInt16(pdu[s + 3]) << 8)
                default:
                    break
                }
            }
            return .att(ATTEvent(timestampMicros: time, direction: direction, connectionHandle: handle,
                                 adapterIndex: adapter, position: position, pdu: pdu))
        }

        private mutating func finishCapture() {
            finished = true
            for f in frames where f.active {
                emit(fault(.incompleteFrame(at: nil, connectionHandle: f.handle, direction: f.direction, frameStart: f.start,
                                            expectedBytes: f.expected ?? 0, receivedBytes: f.buffer.count)))
            }
            frames.removeAll()
        }

        // MARK: - Helpers

        private func frameSlot(handle: UInt16, direction: CaptureDirection, adapter: UInt16) -> Int? {
            for i in frames.indices
            where frames[i].handle == handle && frames[i].direction == direction && frames[i].adapter == adapter {
                return i
            }
            return nil
        }

        private mutating func newFrameSlot(handle: UInt16, direction: CaptureDirection, adapter: UInt16) -> Int {
            frames.append(FrameInProgress(handle: handle, direction: direction, adapter: adapter))
            return frames.count - 1
        }

        /// Counts and lists a fault and returns it as an event.
        private mutating func fault(_ f: CaptureFault) -> CaptureEvent {
            statistics.faults += 1
            if faults.count < faultListLimit { faults.append(f) }
            return .fault(f)
        }

        /// Queues an event to be returned after the current one (faults must already be counted by `fault(_:)`).
        private mutating func emit(_ e: CaptureEvent) {
            pending.append(e)
        }

        private mutating func takePending() -> CaptureEvent? {
            guard pendingIndex < pending.count else { return nil }
            let e = pending[pendingIndex]
            pendingIndex += 1
            if pendingIndex == pending.count { pending.removeAll(keepingCapacity: true); pendingIndex = 0 }
            return e
        }
    }
}

/// Reassembly state of one connection handle and direction.
struct FrameInProgress: Sendable {
    let handle: UInt16
    let direction: CaptureDirection
    let adapter: UInt16
    var buffer: [UInt8] = []
    /// Total frame size including the 4-byte L2CAP header, once known.
    var expected: Int?
    var start = CapturePosition(recordIndex: 0, byteOffset: 0)
    var active = false

    init(handle: UInt16, direction: CaptureDirection, adapter: UInt16) {
        self.handle = handle
        self.direction = direction
        self.adapter = adapter
    }
}
