/// A command a client writes to the bracelet's command characteristic.
///
/// Wire form: `[code][parameters, little-endian][CRC-8 over code and parameters]`. Every command is
/// answered with one 6-byte ``Response`` notification on the response characteristic. A client sends
/// one command at a time and waits for its response (or a 2 s timeout) before sending the next.
public enum Command: Sendable, Hashable {
    /// Sets the bracelet's clock (code 0x01): Unix seconds (UTC) and the local time-zone offset in
    /// minutes east of UTC. Sent after every connection; a changed offset seals the open files.
    case setTime(unixSeconds: UInt32, timeZoneOffsetMinutes: Int16)
    /// Selects a measurement plan (code 0x02).
    case setPlan(MeasurementPlan)
    /// Asks for wearing state, mode, battery, charging and idle state (code 0x03).
    case status
    /// Asks for the size of the oldest sealed file of a kind, sealing the open file if none is sealed,
    /// and activates it for reading (code 0x10).
    case fileSize(FileKind)
    /// Streams `length` bytes (1...10 000) of the active file from `offset` as data packets (code 0x11).
    case readFile(FileKind, offset: UInt32, length: UInt16)
    /// Erases the active sealed file; `size` must equal its size (code 0x12). Sent only after the
    /// client durably saved every byte.
    case eraseFile(FileKind, size: UInt32)
    /// Asks how many sealed files of a kind wait and their total size (code 0x13), sealing the open
    /// file under the same rule as ``fileSize(_:)``; the active file does not change. Lets a client
    /// size a whole backlog before reading it.
    case queueStatus(FileKind)

    /// The command codes.
    public enum Code: UInt8, Sendable {
        case setTime = 0x01, setPlan = 0x02, status = 0x03, fileSize = 0x10, readFile = 0x11, eraseFile = 0x12, queueStatus = 0x13
    }

    /// The largest `length` a read request may ask for.
    public static let maximumReadLength: UInt16 = 10_000

    /// This command's code.
    public var code: Code {
        switch self {
        case .setTime: .setTime
        case .setPlan: .setPlan
        case .status: .status
        case .fileSize: .fileSize
        case .readFile: .readFile
        case .eraseFile: .eraseFile
        case .queueStatus: .queueStatus
        }
    }

    /// The frame to write, CRC included.
    public func encode() -> [UInt8] {
        var out: [UInt8] = [code.rawValue]
        switch self {
        case let .setTime(seconds, offset):
            out.appendLittleEndian(seconds)
            out.appendLittleEndian(offset)
        case let .setPlan(plan):
            out.append(plan.rawValue)
        case .status:
            break
        case let .fileSize(kind), let .queueStatus(kind):
            out.append(kind.rawValue)
        case let .readFile(kind, offset, length):
            out.append(kind.rawValue)
            out.appendLittleEndian(offset)
            out.appendLittleEndian(length)
        case let .eraseFile(kind, size):
            out.append(kind.rawValue)
            out.appendLittleEndian(size)
        }
        out.append(CRC8.checksum(out))
        return out
    }

    /// The frame length, CRC included, for a command code.
    public static func frameLength(of code: Code) -> Int {
        switch code {
        case .setTime: 8
        case .setPlan: 3
        case .status: 2
        case .fileSize: 3
        case .readFile: 9
        case .eraseFile: 7
        case .queueStatus: 3
        }
    }

    /// Decodes a frame a client wrote (the bracelet's side of the protocol).
    public init(frame: [UInt8]) throws(FrameError) {
        guard let first = frame.first else { throw .empty }
        guard let code = Code(rawValue: first) else { throw .unknownCode(first) }
        let expectedLength = Command.frameLength(of: code)
        guard frame.count == expectedLength else {
            throw .wrongLength(code: first, expected: expectedLength, actual: frame.count)
        }
        let crc = CRC8.checksum(frame.dropLast())
        guard crc == frame[frame.count - 1] else {
            throw .crcMismatch(code: first, expected: UInt32(crc), found: UInt32(frame[frame.count - 1]))
        }
        func kind(at index: Int) throws(FrameError) -> FileKind {
            guard let kind = FileKind(rawValue: frame[index]) else {
                throw .invalidField(name: "file kind", value: Int(frame[index]))
            }
            return kind
        }
        switch code {
        case .setTime:
            self = .setTime(unixSeconds: frame.readLittleEndian(at: 1)!, timeZoneOffsetMinutes: frame.readLittleEndian(at: 5)!)
        case .setPlan:
            self = .setPlan(MeasurementPlan(rawValue: frame[1]))
        case .status:
            self = .status
        case .fileSize:
            self = .fileSize(try kind(at: 1))
        case .readFile:
            self = .readFile(try kind(at: 1), offset: frame.readLittleEndian(at: 2)!, length: frame.readLittleEndian(at: 6)!)
        case .eraseFile:
            self = .eraseFile(try kind(at: 1), size: frame.readLittleEndian(at: 2)!)
        case .queueStatus:
            self = .queueStatus(try kind(at: 1))
        }
    }
}
