/// An error code a bracelet answers a command with, and what a client does about it.
public enum DeviceErrorCode: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// The command frame's CRC-8 did not match. The client resends the same frame.
    case badCRC = 0x01
    /// The command code is unknown to this firmware. The client does not retry.
    case unknownCommand = 0x02
    /// A parameter is out of range (unknown file kind, plan not supported by this model, length 0 or
    /// above 10 000). The client fixes the request.
    case badParameter = 0x03
    /// The bracelet is busy (flash write, another transfer). The client retries after 200 ms, at most
    /// 10 times.
    case busy = 0x04
    /// The read offset lies beyond the end of the active file. The client asks for the size again.
    case offsetOutOfRange = 0x05
    /// The erase size is not the size of the active sealed file. The client asks for the size again
    /// and never erases more than it committed.
    case eraseSizeMismatch = 0x06
    /// Time has not been set since power-up; files cannot be sealed. The client sends set-time first.
    case timeNotSet = 0x07
    /// No file of that kind is active: the client sends a size request for the kind first.
    case fileNotActive = 0x08
    /// Flash storage failure. The client stops, keeps what it committed and reports the device.
    case storageFailure = 0x09

    /// What went wrong and what to do, for people.
    public var description: String {
        switch self {
        case .badCRC: "the bracelet received a frame with a bad CRC; resend it"
        case .unknownCommand: "the bracelet does not know this command; check the firmware version"
        case .badParameter: "a parameter was out of range; fix the request"
        case .busy: "the bracelet is busy; retry in 200 ms"
        case .offsetOutOfRange: "the read offset is past the end of the file; ask for the file size again"
        case .eraseSizeMismatch: "the erase size differs from the sealed file size; ask for the size again and erase only what was saved"
        case .timeNotSet: "the bracelet's clock is not set; send set-time first"
        case .fileNotActive: "no file of that kind is active; send a size request first"
        case .storageFailure: "the bracelet reported a storage failure; keep what was saved and contact support"
        }
    }

    /// Whether the same request may succeed when simply sent again later.
    public var isTransient: Bool { self == .badCRC || self == .busy }
}
