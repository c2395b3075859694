import BraceletDecoder
import BraceletProtocol

/// Faults a simulated bracelet injects on request, so that clients can be tested against the
/// failures real links produce. Packet numbers count every data packet the bracelet sends, from 0.
public struct FirmwareFaults: Sendable, Hashable {
    /// Drop the link once this many payload bytes have been streamed (counted over the session).
    public var dropLinkAtBytes: Int?
    /// Data packets never sent.
    public var losePackets: Set<Int> = []
    /// Data packets sent twice.
    public var repeatPackets: Set<Int> = []
    /// Data packets sent with a damaged CRC.
    public var corruptPackets: Set<Int> = []
    /// Reboot (link drops, clock lost, files kept) once this many payload bytes have been streamed.
    public var rebootAtBytes: Int?
    /// Start with a clock that was reset (the client must set the time before any file command).
    public var clockReset = false
    /// Delay before each notification, in milliseconds (the simulator's server honours it).
    public var slowMilliseconds: Int?

    /// No faults.
    public init() {}

    /// Parses the command-line forms `drop-link-at:BYTES`, `lose-packet:N`, `repeat-packet:N`,
    /// `corrupt-crc:N`, `slow:MS`, `reboot-at:BYTES`, `clock-reset`.
    public mutating func add(_ text: String) throws(FirmwareFaultError) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let name = parts[0]
        if name == "clock-reset" {
            guard parts.count == 1 else { throw .invalid(text) }
            clockReset = true
            return
        }
        guard parts.count == 2, let value = Int(parts[1]), value >= 0 else { throw .invalid(text) }
        switch name {
        case "drop-link-at": dropLinkAtBytes = value
        case "lose-packet": losePackets.insert(value)
        case "repeat-packet": repeatPackets.insert(value)
        case "corrupt-crc": corruptPackets.insert(value)
        case "slow": slowMilliseconds = value
        case "reboot-at": rebootAtBytes = value
        default: throw .invalid(text)
        }
    }
}

/// A fault description that could not be understood.
public enum FirmwareFaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not one of the fault forms.
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let text):
            "unknown fault '\(text)'; use drop-link-at:BYTES, lose-packet:N, repeat-packet:N, corrupt-crc:N, slow:MS, reboot-at:BYTES or clock-reset"
        }
    }
}

/// What the bracelet does in answer to one command.
public struct FirmwareReply: Sendable {
    /// The 6-byte response frame to notify on the Response characteristic (`nil` when the link
    /// dropped before it could be sent).
    public var response: [UInt8]?
    /// Data packets to notify on the Data-stream characteristic, in order (faults applied).
    public var packets: [[UInt8]] = []
    /// Whether the link drops after what is listed here.
    public var dropsLink = false
}

/// The bracelet's side of the protocol (protocol-specs/bracelet-protocol.md): clock, plan, file
/// queues with sealing, reads streamed as data packets, erase guarded by size. It holds recorded
/// history from a ``PhysiologyModel`` and seals it into files on request.
///
/// A pure state machine: the GATT server, the capture generator and tests drive it with command
/// frames and the current time.
public struct SimulatedFirmware: Sendable {
    /// The source of recorded history.
    public let history: PhysiologyModel
    /// Beat-to-beat data is recorded only within these spans (UTC), e.g. the nights.
    public let beatWindows: [TimeSpan]
    /// Faults to inject.
    public var faults: FirmwareFaults

    /// Whether the clock was set since power-up.
    public private(set) var isTimeSet: Bool
    /// The time-zone offset the client last set, minutes.
    public private(set) var timeZoneOffsetMinutes: Int?
    /// How far the bracelet's own clock is off (Current Time shows it); set time makes it 0.
    public var clockErrorSeconds: Int64 = 0
    /// The active plan.
    public private(set) var plan = MeasurementPlan.typical
    /// Sealed files waiting to be read, per kind, oldest first.
    public private(set) var queues: [FileKind: [[UInt8]]] = [:]
    /// Kind of the file activated by the last size request.
    public private(set) var activeKind: FileKind?
    /// History before this time (UTC s) has been sealed into files, per kind.
    public private(set) var sealedUntil: [FileKind: Int64] = [:]
    /// Bytes erased so far, per kind (what a client durably saved).
    public private(set) var erasedBytes: [FileKind: Int] = [:]
    /// Data packets sent so far (fault packet numbers count these).
    public private(set) var packetsSent = 0
    /// Payload bytes streamed so far.
    public private(set) var bytesStreamed = 0
    /// The offset in force for records not yet sealed, minutes.
    private var recordingOffsetMinutes: Int
    /// The largest file the bracelet lets grow, header and CRC included: the spec's 16 777 215 bytes
    /// (sizes travel as u24). Tests lower it to exercise many files with a short history.
    public let maximumFileSize: Int

    /// A bracelet holding `history`, recording beats within `beatWindows`, sealing files before they
    /// pass `maximumFileSize` bytes (capped at the spec's 16 777 215).
    public init(history: PhysiologyModel, beatWindows: [TimeSpan], faults: FirmwareFaults = FirmwareFaults(),
                maximumFileSize: Int = Int(Response.maximumFileSize)) {
        self.history = history
        self.beatWindows = beatWindows
        self.faults = faults
        self.maximumFileSize = max(FileHeader.length + FileHeader.trailerLength + MetricsRecordLayout.size(for: .v2),
                                   min(maximumFileSize, Int(Response.maximumFileSize)))
        isTimeSet = !faults.clockReset
        recordingOffsetMinutes = history.utcOffsetSeconds(at: history.start) / 60
        for kind in [FileKind.metrics, .beats] { sealedUntil[kind] = history.start }
    }

    /// The model the bracelet reports.
    public var model: DeviceModel { history.deviceModel }
    /// The serial number.
    public var serial: String { history.serial }

    /// Handles one command frame written at `now` (UTC seconds), with notifications limited to
    /// `mtu - 3` bytes.
    public mutating func handle(frame: [UInt8], now: Int64, mtu: Int) -> FirmwareReply {
        let command: Command
        do { command = try Command(frame: frame) } catch {
            let code: DeviceErrorCode
            switch error {
            case .crcMismatch: code = .badCRC
            case .unknownCode: code = .unknownCommand
            default: code = .badParameter
            }
            return FirmwareReply(response: Response.error(command: frame.first ?? 0, code: code, detail: 0).encode())
        }
        func fail(_ code: DeviceErrorCode, detail: UInt16 = 0) -> FirmwareReply {
            FirmwareReply(response: Response.error(command: command.code.rawValue, code: code, detail: detail).encode())
        }
        switch command {
        case let .setTime(_, offset):
            if let previous = timeZoneOffsetMinutes, previous != Int(offset) {
                // A changed offset seals what was recorded under the old one.
                for kind in [FileKind.metrics, .beats] { seal(kind, until: now) }
            }
            isTimeSet = true
            clockErrorSeconds = 0
            timeZoneOffsetMinutes = Int(offset)
            recordingOffsetMinutes = Int(offset)
            return FirmwareReply(response: Response.timeSet.encode())
        case let .setPlan(plan):
            guard plan.isSupported(by: model) else { return fail(.badParameter) }
            self.plan = plan
            return FirmwareReply(response: Response.planSet(plan).encode())
        case .status:
            let worn = history.isWorn(at: now)
            let status = DeviceStatus(wearing: worn ? 4 : 0, mode: 0, batteryPercent: UInt8(clamping: history.batteryPercent(at: now)),
                                      isCharging: history.isCharging(at: now), idleState: 0)
            return FirmwareReply(response: Response.status(status).encode())
        case let .fileSize(kind):
            guard isTimeSet else { return fail(.timeNotSet) }
            if queues[kind, default: []].isEmpty { seal(kind, until: now) }
            activeKind = kind
            let size = queues[kind]?.first?.count ?? 0
            return FirmwareReply(response: Response.fileSize(size: UInt32(size), storageUsedPercent: storageUsed).encode())
        case let .readFile(kind, offset, length):
            guard isTimeSet else { return fail(.timeNotSet) }
            guard activeKind == kind, let file = queues[kind]?.first else { return fail(.fileNotActive) }
            guard length >= 1, length <= Command.maximumReadLength else { return fail(.badParameter) }
            guard Int(offset) < file.count else { return fail(.offsetOutOfRange, detail: UInt16(truncatingIfNeeded: file.count)) }
            return stream(file, from: Int(offset), length: min(Int(length), file.count - Int(offset)), mtu: mtu)
        case let .queueStatus(kind):
            guard isTimeSet else { return fail(.timeNotSet) }
            if queues[kind, default: []].isEmpty { seal(kind, until: now) }
            let files = queues[kind] ?? []
            let kibibytes = (files.reduce(0) { $0 + $1.count } + 1023) / 1024
            return FirmwareReply(response: Response.queueStatus(files: UInt8(clamping: files.count),
                                                                kibibytes: UInt32(clamping: min(kibibytes, 0xFF_FFFF))).encode())
        case let .eraseFile(kind, size):
            guard isTimeSet else { return fail(.timeNotSet) }
            guard activeKind == kind, let file = queues[kind]?.first else { return fail(.fileNotActive) }
            guard Int(size) == file.count else { return fail(.eraseSizeMismatch, detail: UInt16(truncatingIfNeeded: file.count)) }
            queues[kind]?.removeFirst()
            erasedBytes[kind, default: 0] += file.count
            activeKind = nil
            return FirmwareReply(response: Response.erased(size: size, storageUsedPercent: storageUsed).encode())
        }
    }

    /// A restart: the clock is lost until the client sets it again, the active file is forgotten,
    /// sealed files and what is recorded stay (flash).
    public mutating func reboot() {
        isTimeSet = false
        activeKind = nil
    }

    /// The link went down (or the client disconnected): the active file is forgotten, files stay.
    public mutating func linkDown() {
        activeKind = nil
    }

    private var storageUsed: UInt8 {
        let bytes = queues.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        return UInt8(clamping: bytes * 100 / 4_000_000)
    }

    private mutating func stream(_ file: [UInt8], from offset: Int, length: Int, mtu: Int) -> FirmwareReply {
        let capacity = DataPacket.payloadCapacity(attMTU: mtu)
        let count = (length + capacity - 1) / capacity
        var reply = FirmwareReply(response: Response.readAccepted(length: UInt16(length), packetCount: UInt16(count)).encode())
        var position = offset
        for sequence in 0..<count {
            let n = min(capacity, offset + length - position)
            let packet = DataPacket(sequence: UInt16(sequence), offset: UInt32(position), isLast: sequence == count - 1,
                                    payload: Array(file[position..<(position + n)]))
            let number = packetsSent
            packetsSent += 1
            var bytes = packet.encode()
            if faults.corruptPackets.contains(number) { bytes[bytes.count - 1] ^= 0x5A }
            if !faults.losePackets.contains(number) { reply.packets.append(bytes) }
            if faults.repeatPackets.contains(number) { reply.packets.append(bytes) }
            position += n
            bytesStreamed += n
            if let limit = faults.dropLinkAtBytes, bytesStreamed >= limit {
                faults.dropLinkAtBytes = nil
                reply.dropsLink = true
                linkDown()
                return reply
            }
            if let limit = faults.rebootAtBytes, bytesStreamed >= limit {
                faults.rebootAtBytes = nil
                reply.dropsLink = true
                isTimeSet = false
                linkDown()
                return reply
            }
        }
        return reply
    }

    /// Seals the history of `kind` recorded before `until` into files, appending them to the queue
    /// oldest first. A file ends where the slot grid would break, before it would pass
    /// ``maximumFileSize`` bytes, and (beats) before a beat time would pass 2^32 - 1 ms after its base
    /// (spec §6.3), so a long history becomes several files of the same kind.
    mutating func seal(_ kind: FileKind, until: Int64) {
        let from = sealedUntil[kind] ?? history.start
        let end = min(until, history.end)
        guard end > from else { return }
        switch kind {
        case .metrics: sealMetrics(from: from, end: end)
        case .beats: sealBeats(from: from, end: end)
        default: break
        }
    }

    private mutating func sealMetrics(from: Int64, end: Int64) {
        let interval = Int64(history.slotIntervalSeconds)
        let completeEnd = history.start + (end - history.start) / interval * interval
        let capacity = Int64(FileHeader.recordCapacity(recordSize: MetricsRecordLayout.size(for: model), limit: maximumFileSize))
        var start = from
        // One file's slots at a time: a year of history is never built as one array.
        while start < completeEnd {
            let slots = history.slots(from: start, to: min(completeEnd, start + capacity * interval))
            guard !slots.isEmpty else { return }
            // The model's values fit the wire format by construction; a slot that does not ends the
            // file rather than being written wrong.
            let encoder = MetricsRecordEncoder(model: model)
            var records: [UInt8] = []
            var written = 0
            for slot in slots {
                do { try encoder.append(slot, to: &records); written += 1 } catch { break }
            }
            guard written > 0 else { return }
            let header = FileHeader(kind: .metrics, model: model, serial: serial, baseTime: slots[0].start,
                                    timeZoneOffsetMinutes: recordingOffsetMinutes, intervalSeconds: Int(interval),
                                    recordCount: written)
            queues[.metrics, default: []].append(SealedFile.seal(header: header, records: records))
            sealedUntil[.metrics] = slots[0].start + Int64(written) * interval
            if written < slots.count { return }
            start = slots[0].start + Int64(written) * interval
        }
    }

    private mutating func sealBeats(from: Int64, end: Int64) {
        let capacity = FileHeader.recordCapacity(recordSize: BeatRecordLayout.size, limit: maximumFileSize)
        var pending: [Beat] = []
        func flush(_ firmware: inout SimulatedFirmware) {
            guard let first = pending.first else { return }
            firmware.queues[.beats, default: []].append(BeatsCodec.sealedFile(model: firmware.model, serial: firmware.serial,
                                                                              timeZoneOffsetMinutes: firmware.recordingOffsetMinutes,
                                                                              baseTime: first.timeMs / 1000, beats: pending))
            pending.removeAll(keepingCapacity: true)
        }
        for window in beatWindows where window.end > from && window.start < end {
            var windowBeats = history.beats(from: max(window.start, from), to: min(window.end, end))
            // Nothing was recorded between windows: the first beat of a window starts after a gap.
            if !windowBeats.isEmpty { windowBeats[0].rrMs = nil }
            for beat in windowBeats {
                if let first = pending.first,
                   pending.count == capacity || beat.timeMs - first.timeMs / 1000 * 1000 > FileHeader.maximumBeatOffsetMilliseconds {
                    flush(&self)
                }
                pending.append(beat)
            }
        }
        flush(&self)
        sealedUntil[.beats] = end
    }
}
