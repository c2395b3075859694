/// The bracelet's answer to a ``Command``, notified on the response characteristic.
///
/// Wire form: always 6 bytes, `[code][4 data bytes][CRC-8 over the first 5]`. `code` is the command
/// code for a success and 0xEE for an error. Unused data bytes are 0.
public enum Response: Sendable, Hashable {
    /// The clock was set.
    case timeSet
    /// The plan is active.
    case planSet(MeasurementPlan)
    /// The bracelet's current state.
    case status(DeviceStatus)
    /// Size in bytes of the now active file (0: nothing to read) and storage use in percent.
    case fileSize(size: UInt32, storageUsedPercent: UInt8)
    /// A read was accepted: `length` bytes follow in `packetCount` data packets.
    case readAccepted(length: UInt16, packetCount: UInt16)
    /// The active sealed file was erased (`size` bytes); storage use after the erase.
    case erased(size: UInt32, storageUsedPercent: UInt8)
    /// Sealed files of the asked kind waiting to be read (255 means 255 or more) and their total size
    /// in KiB (1024 bytes), rounded up.
    case queueStatus(files: UInt8, kibibytes: UInt32)
    /// The command failed. `detail` carries a code-specific value (for `.offsetOutOfRange` and
    /// `.eraseSizeMismatch`, the low 16 bits of the active file size; otherwise 0).
    case error(command: UInt8, code: DeviceErrorCode, detail: UInt16)

    /// The response length on the wire.
    public static let length = 6
    /// The code of an error response.
    public static let errorCode: UInt8 = 0xEE
    /// Largest file size a response can carry (24 bits).
    public static let maximumFileSize: UInt32 = 0xFF_FFFF

    /// The 6-byte frame, CRC included.
    public func encode() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 6)
        func put24(_ value: UInt32) {
            out[1] = UInt8(truncatingIfNeeded: value)
            out[2] = UInt8(truncatingIfNeeded: value >> 8)
            out[3] = UInt8(truncatingIfNeeded: value >> 16)
        }
        switch self {
        case .timeSet:
            out[0] = Command.Code.setTime.rawValue
        case let .planSet(plan):
            out[0] = Command.Code.setPlan.rawValue
            out[1] = plan.rawValue
        case let .status(status):
            out[0] = Command.Code.status.rawValue
            out[1] = status.wearing
            out[2] = (status.mode & 1) | (status.isCharging ? 2 : 0)
            out[3] = status.batteryPercent
            out[4] = status.idleState
        case let .fileSize(size, used):
            out[0] = Command.Code.fileSize.rawValue
            put24(size)
            out[4] = used
        case let .readAccepted(length, packets):
            out[0] = Command.Code.readFile.rawValue
            out[1] = UInt8(truncatingIfNeeded: length)
            out[2] = UInt8(truncatingIfNeeded: length >> 8)
            out[3] = UInt8(truncatingIfNeeded: packets)
            out[4] = UInt8(truncatingIfNeeded: packets >> 8)
        case let .erased(size, used):
            out[0] = Command.Code.eraseFile.rawValue
            put24(size)
            out[4] = used
        case let .queueStatus(files, kibibytes):
            out[0] = Command.Code.queueStatus.rawValue
            out[1] = files
            out[2] = UInt8(truncatingIfNeeded: kibibytes)
            out[3] = UInt8(truncatingIfNeeded: kibibytes >> 8)
            out[4] = UInt8(truncatingIfNeeded: kibibytes >> 16)
        case let .error(command, code, detail):
            out[0] = Response.errorCode
            out[1] = command
            out[2] = code.rawValue
            out[3] = UInt8(truncatingIfNeeded: detail)
            out[4] = UInt8(truncatingIfNeeded: detail >> 8)
        }
        out[5] = CRC8.checksum(out[0..<5])
        return out
    }

    /// Decodes a 6-byte response frame.
    public init(frame: [UInt8]) throws(FrameError) {
        guard let code = frame.first else { throw .empty }
        guard frame.count == Response.length else {
            throw .wrongLength(code: code, expected: Response.length, actual: frame.count)
        }
        let crc = CRC8.checksum(frame[0..<5])
        guard crc == frame[5] else { throw .crcMismatch(code: code, expected: UInt32(crc), found: UInt32(frame[5])) }
        let size24 = UInt32(frame[1]) | UInt32(frame[2]) << 8 | UInt32(frame[3]) << 16
        if code == Response.errorCode {
            guard let error = DeviceErrorCode(rawValue: frame[2]) else {
                throw .invalidField(name: "error code", value: Int(frame[2]))
            }
            self = .error(command: frame[1], code: error, detail: UInt16(frame[3]) | UInt16(frame[4]) << 8)
            return
        }
        guard let command = Command.Code(rawValue: code) else { throw .unknownCode(code) }
        switch command {
        case .setTime: self = .timeSet
        case .setPlan: self = .planSet(MeasurementPlan(rawValue: frame[1]))
        case .status:
            guard frame[1] <= 4, frame[4] <= 4, frame[3] <= 100 else {
                throw .invalidField(name: "status", value: Int(frame[1]))
            }
            self = .status(DeviceStatus(wearing: frame[1], mode: frame[2] & 1, batteryPercent: frame[3],
                                        isCharging: frame[2] & 2 != 0, idleState: frame[4]))
        case .fileSize: self = .fileSize(size: size24, storageUsedPercent: frame[4])
        case .readFile:
            self = .readAccepted(length: UInt16(frame[1]) | UInt16(frame[2]) << 8,
                                 packetCount: UInt16(frame[3]) | UInt16(frame[4]) << 8)
        case .eraseFile: self = .erased(size: size24, storageUsedPercent: frame[4])
        case .queueStatus:
            self = .queueStatus(files: frame[1], kibibytes: UInt32(frame[2]) | UInt32(frame[3]) << 8 | UInt32(frame[4]) << 16)
        }
    }
}

/// The state a status request reports.
public struct DeviceStatus: Sendable, Hashable {
    /// Wearing state 0 (not worn) ... 4 (worn on the wrist).
    public var wearing: UInt8
    /// Mode: 0 normal, 1 measurement paused.
    public var mode: UInt8
    /// Battery level, percent.
    public var batteryPercent: UInt8
    /// Whether the bracelet is on its charger.
    public var isCharging: Bool
    /// Idle state 0 (active) ... 4 (deep idle).
    public var idleState: UInt8

    /// Creates a status.
    public init(wearing: UInt8, mode: UInt8, batteryPercent: UInt8, isCharging: Bool, idleState: UInt8) {
        self.wearing = wearing
        self.mode = mode
        self.batteryPercent = batteryPercent
        self.isCharging = isCharging
        self.idleState = idleState
    }
}
