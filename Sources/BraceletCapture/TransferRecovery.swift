import BraceletProtocol
import BraceletTransport

/// A file the bracelet streamed during a captured session, put back together from its data packets.
public struct RecoveredFile: Sendable {
    /// Which file it is.
    public var kind: FileKind
    /// The size the bracelet announced.
    public var announcedSize: Int
    /// The bytes received, `announcedSize` long when complete. An incomplete file holds the
    /// contiguous bytes from offset 0 up to the first byte never received.
    public var bytes: [UInt8]
    /// Whether every byte arrived.
    public var isComplete: Bool { bytes.count == announcedSize }
    /// Whether the client erased it on the bracelet after the transfer.
    public var wasErased: Bool
    /// Unix µs of the packet that completed the file (or of the last packet received).
    public var completedAtMicros: Int64
}

/// A standard Heart Rate Measurement notification seen in a capture.
public struct CapturedHeartRate: Sendable {
    /// Unix µs of the notification.
    public var timestampMicros: Int64
    /// The decoded measurement.
    public var measurement: HeartRateMeasurement
}

/// Something about the bracelet protocol exchange in a capture that was wrong, with where it was.
public enum TransferFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// A data packet failed its CRC-16 or length check; the client re-requests such ranges.
    case corruptPacket(at: CapturePosition, reason: String)
    /// Packets between `expectedOffset` and `receivedOffset` never arrived at this point.
    case packetsLost(at: CapturePosition, kind: FileKind, expectedOffset: Int, receivedOffset: Int)
    /// A packet repeated bytes already held; it was ignored.
    case repeatedPacket(at: CapturePosition, kind: FileKind, offset: Int)
    /// A packet arrived when no file was active, or beyond the announced size.
    case unexpectedPacket(at: CapturePosition, offset: Int)
    /// A command response failed its CRC or was malformed.
    case badResponse(at: CapturePosition, reason: String)
    /// The bracelet answered a command with an error.
    case deviceError(at: CapturePosition, command: UInt8, code: DeviceErrorCode)
    /// The link went down while a file was being read.
    case linkDroppedDuringTransfer(at: CapturePosition, kind: FileKind, received: Int, of: Int)
    /// The capture ended before a file was complete.
    case transferIncomplete(kind: FileKind, received: Int, of: Int)
    /// An erase was sent for more bytes than had been received: data could have been lost.
    case eraseBeforeCompleteTransfer(at: CapturePosition, kind: FileKind, erased: Int, received: Int)

    public var description: String {
        switch self {
        case let .corruptPacket(p, reason):
            "\(p): \(reason)"
        case let .packetsLost(p, kind, expected, received):
            "\(p): \(kind) packets lost: expected offset \(expected), got \(received); the range must be re-requested"
        case let .repeatedPacket(p, kind, offset):
            "\(p): \(kind) packet at offset \(offset) repeated bytes already received; ignored"
        case let .unexpectedPacket(p, offset):
            "\(p): data packet for offset \(offset) arrived with no matching file transfer; ignored"
        case let .badResponse(p, reason):
            "\(p): command response unusable (\(reason))"
        case let .deviceError(p, command, code):
            "\(p): bracelet answered command 0x\(hexString(command)) with an error: \(code)"
        case let .linkDroppedDuringTransfer(p, kind, received, total):
            "\(p): link dropped during the \(kind) transfer after \(received) of \(total) bytes; a resumed transfer continues it"
        case let .transferIncomplete(kind, received, total):
            "capture ends with the \(kind) transfer incomplete (\(received) of \(total) contiguous bytes); the complete records before the gap are delivered; capture a new session to get the rest (the bracelet keeps unerased files)"
        case let .eraseBeforeCompleteTransfer(p, kind, erased, received):
            "\(p): client erased \(erased) bytes of \(kind) but had received only \(received); data may be lost on the bracelet"
        }
    }
}

/// Which attribute handles carry what, learnt from GATT discovery in the capture or, failing that,
/// from the shape of the values.
public struct BraceletHandles: Sendable, Hashable {
    /// Command characteristic value handle.
    public var command: UInt16?
    /// Response characteristic value handle.
    public var response: UInt16?
    /// Data-stream characteristic value handle.
    public var data: UInt16?
    /// Heart Rate Measurement value handle.
    public var heartRate: UInt16?
    /// Model Number String value handle.
    public var modelNumber: UInt16?
}

/// Recovers bracelet file transfers and heart-rate notifications from a capture's ATT PDUs.
///
/// Feed it every ``CaptureEvent`` in order, then call ``finish()``. It follows the protocol
/// (protocol-specs/bracelet-protocol.md §7-8): the size response names the active file, data packets
/// are placed by their offset, repeats are ignored, losses are noted, and a transfer interrupted by a
/// link drop continues when a later connection reads the same file again.
public struct TransferRecovery: Sendable {
    /// Handles learnt so far.
    public private(set) var handles = BraceletHandles()
    /// Files recovered so far, in the order they completed.
    public private(set) var files: [RecoveredFile] = []
    /// Heart-rate notifications, in capture order.
    public private(set) var heartRates: [CapturedHeartRate] = []
    /// Protocol faults found.
    public private(set) var faults: [TransferFault] = []
    /// The model the Device Information model number named, if the capture read it.
    public private(set) var modelFromDeviceInformation: DeviceModel?

    /// A file being received. Memory follows what the capture carried, never the announced size: a
    /// size response costs nothing until data packets arrive, so a capture that announces many large
    /// files without sending them cannot make recovery allocate them.
    struct Transfer: Sendable {
        var kind: FileKind
        var size: Int
        /// The bytes received without a gap from offset 0.
        var prefix: [UInt8] = []
        /// Packets received past a gap, by offset, until the gap is filled.
        var ahead: [Int: [UInt8]] = [:]
        var expectedOffset = 0
        var lastMicros: Int64 = 0

        init(kind: FileKind, size: Int) {
            self.kind = kind
            self.size = size
        }

        /// Bytes from offset 0 up to the first byte never received.
        var contiguous: Int { prefix.count }

        /// Whether the byte at `offset` was already received.
        func holds(_ offset: Int) -> Bool {
            offset < prefix.count || ahead.contains { start, chunk in start <= offset && offset < start + chunk.count }
        }

        /// Appends `payload`, which starts at the first byte never received, with no packet held
        /// past a gap (``receive(_:at:)`` of that case).
        mutating func extend(with payload: ArraySlice<UInt8>) {
            reserve(upTo: prefix.count + payload.count)
            prefix.append(contentsOf: payload)
        }

        /// Keeps the bytes of `payload` (placed at `offset`) that were not received before.
        mutating func receive(_ payload: ArraySlice<UInt8>, at offset: Int) {
            guard offset + payload.count > prefix.count else { return }
            if offset > prefix.count {
                if let held = ahead[offset], held.count >= payload.count { return }
                ahead[offset] = Array(payload)
                return
            }
            reserve(upTo: offset + payload.count)
            prefix.append(contentsOf: payload.dropFirst(prefix.count - offset))
            // Move every chunk the prefix now reaches into it.
            while let start = ahead.keys.first(where: { $0 <= prefix.count }), let chunk = ahead.removeValue(forKey: start) {
                if start + chunk.count > prefix.count {
                    reserve(upTo: start + chunk.count)
                    prefix.append(contentsOf: chunk[(prefix.count - start)...])
                }
            }
        }

        /// Makes room in `prefix` for `count` bytes (at most ``size``, which ``place`` checks). Up
        /// to ``reserveAfterBytes`` the array grows as arrays do, so an announced size costs
        /// nothing; past that the file has proved itself and gets its announced size at once, so a
        /// file of 16 MB is never held twice (old and doubled buffer) while it grows.
        private mutating func reserve(upTo count: Int) {
            if count > prefix.capacity, count > Self.reserveAfterBytes { prefix.reserveCapacity(max(count, size)) }
        }

        /// Bytes a transfer must have received before its announced size is reserved.
        static let reserveAfterBytes = 1 << 20
    }

    private var active: Transfer?
    /// Transfers interrupted by a link drop, waiting to be resumed by a size request for the same file.
    private var suspended: [Transfer] = []
    private var lastCommand: Command?
    /// The handle of the last read request, to know what its response is.
    private var pendingReadHandle: UInt16?

    /// An empty recovery.
    public init() {}

    /// Bytes held for transfers not yet delivered (the active one and those waiting to be resumed):
    /// at most the payload bytes the capture carried.
    var heldBytes: Int {
        ([active].compactMap { $0 } + suspended).reduce(0) { total, t in
            total + t.prefix.count + t.ahead.values.reduce(0) { $0 + $1.count }
        }
    }

    /// Handles one capture event.
    public mutating func consume(_ event: CaptureEvent) {
        switch event {
        case .att(let e): consume(e)
        case .disconnected(let link):
            if let transfer = active, transfer.contiguous < transfer.size {
                faults.append(.linkDroppedDuringTransfer(at: link.position, kind: transfer.kind, received: transfer.contiguous, of: transfer.size))
                suspended.append(transfer)
            }
            active = nil
            lastCommand = nil
        case .connected, .fault:
            break
        }
    }

    /// Handles one ATT PDU.
    public mutating func consume(_ event: ATTEvent) {
        // Most PDUs of a capture are data packets on the known data handle: they are checked and
        // placed straight from the capture's bytes. Anything else, or a packet that fails its
        // checks, takes the general path, which names the fault.
        if let known = handles.data, let response = handles.response, known != response, known != handles.heartRate,
           event.notifiedHandle == known, let packet = CheckedDataPacket(event.pdu.dropFirst(3)) {
            place(offset: packet.offset, payload: packet.payload, event: event)
            return
        }
        guard let pdu = try? event.decode() else { return }
        switch pdu {
        case .readByTypeResponse(let list):
            // Characteristic declarations: properties u8, value handle u16, UUID.
            for entry in list.entries where entry.value.count == 5 || entry.value.count == 19 {
                let valueHandle = UInt16(entry.value[1]) | UInt16(entry.value[2]) << 8
                if let uuid = BluetoothUUID(wireBytes: entry.value[3...]) { learn(valueHandle, uuid) }
            }
        case .readRequest(let handle):
            pendingReadHandle = handle
        case .readResponse(let value):
            if let pending = pendingReadHandle, pending == handles.modelNumber {
                modelFromDeviceInformation = GATTNumbers.model(fromModelNumber: String(decoding: value, as: UTF8.self))
            }
            pendingReadHandle = nil
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value):
            if handle == handles.command || (handles.command == nil && (try? Command(frame: value)) != nil) {
                handles.command = handle
                lastCommand = try? Command(frame: value)
            }
        case .handleValueNotification(let handle, let value), .handleValueIndication(let handle, let value):
            notification(handle: handle, value: value, event: event)
        default:
            break
        }
    }

    private mutating func learn(_ handle: UInt16, _ uuid: BluetoothUUID) {
        // Compare 128-bit forms: a peer may declare a SIG characteristic in its 128-bit form.
        switch uuid.expanded128 {
        case GATTNumbers.commandCharacteristic.expanded128: handles.command = handle
        case GATTNumbers.responseCharacteristic.expanded128: handles.response = handle
        case GATTNumbers.dataCharacteristic.expanded128: handles.data = handle
        case GATTNumbers.heartRateMeasurement.expanded128: handles.heartRate = handle
        case GATTNumbers.modelNumber.expanded128: handles.modelNumber = handle
        default: break
        }
    }

    private mutating func notification(handle: UInt16, value: [UInt8], event: ATTEvent) {
        if handle == handles.heartRate {
            if let m = try? HeartRateMeasurement(value: value) {
                heartRates.append(CapturedHeartRate(timestampMicros: event.timestampMicros, measurement: m))
            }
            return
        }
        if handle == handles.response || (handles.response == nil && value.count == Response.length && lastCommand != nil) {
            handles.response = handle
            response(value, event: event)
            return
        }
        if handle == handles.data || (handles.data == nil && active != nil) {
            handles.data = handle
            dataPacket(value, event: event)
        }
    }

    private mutating func response(_ value: [UInt8], event: ATTEvent) {
        let parsed: Response
        do { parsed = try Response(frame: value) } catch {
            faults.append(.badResponse(at: event.position, reason: error.description))
            return
        }
        switch parsed {
        case let .fileSize(size, _):
            guard case .fileSize(let kind) = lastCommand else { return }
            finishActive()
            let size = Int(size)
            guard size > 0 else { return }
            if let index = suspended.firstIndex(where: { $0.kind == kind && $0.size == size }) {
                active = suspended.remove(at: index)
            } else {
                active = Transfer(kind: kind, size: size)
            }
        case .readAccepted:
            if case let .readFile(_, offset, _) = lastCommand { active?.expectedOffset = Int(offset) }
        case let .erased(size, _):
            guard case .eraseFile(let kind, _) = lastCommand else { return }
            if let transfer = active, transfer.kind == kind {
                if transfer.contiguous < Int(size) {
                    faults.append(.eraseBeforeCompleteTransfer(at: event.position, kind: kind, erased: Int(size), received: transfer.contiguous))
                }
                emit(transfer, erased: true)
                active = nil
            } else if let index = files.lastIndex(where: { $0.kind == kind && $0.announcedSize == Int(size) }) {
                files[index].wasErased = true
            }
        case let .error(command, code, _):
            faults.append(.deviceError(at: event.position, command: command, code: code))
        case .timeSet, .planSet, .status, .queueStatus:
            break
        }
    }

    private mutating func dataPacket(_ value: [UInt8], event: ATTEvent) {
        let packet: DataPacket
        do { packet = try DataPacket(bytes: value) } catch {
            faults.append(.corruptPacket(at: event.position, reason: error.description))
            return
        }
        place(offset: Int(packet.offset), payload: packet.payload[...], event: event)
    }

    /// Puts a checked data packet's payload into the active transfer.
    private mutating func place(offset: Int, payload: ArraySlice<UInt8>, event: ATTEvent) {
        guard var transfer = active, offset + payload.count <= transfer.size else {
            faults.append(.unexpectedPacket(at: event.position, offset: offset))
            return
        }
        // Take the transfer out so its buffers are uniquely referenced: writing into them must not
        // copy the whole file on every packet.
        active = nil
        if offset == transfer.expectedOffset, offset == transfer.contiguous, transfer.ahead.isEmpty {
            // The packet a transfer in order gets: it extends the file, nothing is repeated or lost.
            transfer.extend(with: payload)
        } else {
            if offset < transfer.expectedOffset || transfer.holds(offset) {
                faults.append(.repeatedPacket(at: event.position, kind: transfer.kind, offset: offset))
            } else if offset > transfer.expectedOffset {
                faults.append(.packetsLost(at: event.position, kind: transfer.kind, expectedOffset: transfer.expectedOffset, receivedOffset: offset))
            }
            transfer.receive(payload, at: offset)
        }
        transfer.expectedOffset = max(transfer.expectedOffset, offset + payload.count)
        transfer.lastMicros = event.timestampMicros
        active = transfer
    }

    /// Moves the active transfer to `files` when complete; an incomplete one is kept for resuming.
    private mutating func finishActive() {
        guard let transfer = active else { return }
        if transfer.contiguous == transfer.size {
            emit(transfer, erased: false)
        } else {
            suspended.append(transfer)
        }
        active = nil
    }

    private mutating func emit(_ transfer: Transfer, erased: Bool) {
        files.append(RecoveredFile(kind: transfer.kind, announcedSize: transfer.size, bytes: transfer.prefix,
                                   wasErased: erased, completedAtMicros: transfer.lastMicros))
    }

    /// Hands over the files recovered since the last call and forgets their bytes, so that a reader
    /// streaming a long capture holds one file at a time instead of all of them. A later erase of a
    /// file already taken no longer marks it (``RecoveredFile/wasErased`` is set only on files still held).
    public mutating func takeFiles() -> [RecoveredFile] {
        defer { files = [] }
        return files
    }

    /// Ends the capture: a complete active file is delivered; incomplete ones are delivered with the
    /// contiguous bytes they have and a ``TransferFault/transferIncomplete(kind:received:of:)`` fault.
    public mutating func finish() {
        finishActive()
        for transfer in suspended {
            faults.append(.transferIncomplete(kind: transfer.kind, received: transfer.contiguous, of: transfer.size))
            if transfer.contiguous > 0 { emit(transfer, erased: false) }
        }
        suspended = []
    }
}

/// A data packet checked like ``DataPacket/init(bytes:)`` (length field, CRC-16, payload length,
/// flags) but read in place: its payload is a slice of the capture's bytes, nothing is copied.
private struct CheckedDataPacket {
    var offset: Int
    var payload: ArraySlice<UInt8>

    /// `nil` when the packet fails a check (``DataPacket/init(bytes:)`` then says which).
    init?(_ frame: ArraySlice<UInt8>) {
        let count = frame.count, s = frame.startIndex
        guard count >= DataPacket.headerLength + 1 + DataPacket.trailerLength else { return nil }
        let length = Int(frame[s + 6])
        guard length >= 1, count == DataPacket.headerLength + length + DataPacket.trailerLength else { return nil }
        // The checks of `DataPacket` beyond the CRC: a payload length a bracelet never sends, or a
        // reserved flag bit, makes the packet corrupt.
        guard length <= DataPacket.maximumPayload, frame[s + 7] & ~1 == 0 else { return nil }
        let found = UInt16(frame[s + count - 2]) | UInt16(frame[s + count - 1]) << 8
        let computed = frame.withUnsafeBytes { CRC16.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<(count - 2)])) }
        guard computed == found else { return nil }
        offset = Int(UInt32(frame[s + 2]) | UInt32(frame[s + 3]) << 8 | UInt32(frame[s + 4]) << 16 | UInt32(frame[s + 5]) << 24)
        payload = frame[(s + DataPacket.headerLength)..<(s + DataPacket.headerLength + length)]
    }
}
