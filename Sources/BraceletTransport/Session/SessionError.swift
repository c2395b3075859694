import BraceletProtocol

/// Why a ``BraceletSession`` stopped. Everything committed before stays committed.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection cannot be made and retrying will not help (no Bluetooth, no adapter, ...).
    case cannotConnect(String)
    /// The link kept failing; gave up after `attempts` connection attempts.
    case gaveUp(attempts: Int, lastProblem: String)
    /// The device is not a bracelet this build knows.
    case unsupportedDevice(String)
    /// A characteristic the protocol needs is missing.
    case missingCharacteristic(String)
    /// The bracelet answered a command with an error that retrying will not fix.
    case deviceError(command: UInt8, code: DeviceErrorCode, detail: UInt16)
    /// A file failed verification every time it was read.
    case verificationFailed(kind: FileKind, attempts: Int, reason: String)
    /// The sink could not store a file (nothing was erased).
    case sinkFailed(kind: FileKind, reason: String)
    /// Every file was committed, but the sink's end-of-sync work (``TransferSink/syncEnded()``) failed.
    case sinkFinishFailed(reason: String)
    /// The link failed (recovered by reconnecting when possible).
    case link(String)
    /// A command got no valid response (recovered by reconnecting when possible).
    case commandTimedOut(command: UInt8)
    /// Reads made no progress.
    case noProgress(kind: FileKind, offset: Int)
    /// An announced file size disagrees with the file's header (wrapped or corrupted size).
    case sizeMismatch(AnnouncedSizeMismatch)

    /// Whether reconnecting may fix it.
    var isRecoverable: Bool {
        switch self {
        case .link, .commandTimedOut, .noProgress: true
        default: false
        }
    }

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .cannotConnect(let why): why
        case let .gaveUp(attempts, last):
            "gave up after \(attempts) connection attempts (last problem: \(last)); everything committed is kept. "
                + "Bring the bracelet closer and run the sync again: it resumes where it stopped."
        case .unsupportedDevice(let text):
            "the device reports model number '\(text)', which is not a V1 (287-1) or V2 (287-2, 287-2B) bracelet; "
                + "refusing to guess its file layout. Update bracelet if this is a newer model."
        case .missingCharacteristic(let name):
            "the device has no \(name) characteristic; it is not a bracelet or runs unsupported firmware"
        case let .deviceError(command, code, detail):
            "the bracelet answered command 0x\(hexString(command)) with error \(code.rawValue) (detail \(detail)): \(code)"
        case let .verificationFailed(kind, attempts, reason):
            "the \(kind) file failed verification \(attempts) times (\(reason)); it was not erased and stays on the bracelet. "
                + "Retry later; if it persists report the bracelet's firmware version."
        case let .sinkFailed(kind, reason):
            "could not store the \(kind) file (\(reason)); nothing was erased on the bracelet. Fix the store and sync again."
        case .sinkFinishFailed(let reason):
            "every file was stored, but finishing the sync failed (\(reason)); nothing stored is lost. "
                + "Fix the store and sync again: the unfinished work is done then."
        case .link(let why): why
        case .commandTimedOut(let command):
            "no valid response to command 0x\(hexString(command)) within the timeout (sent twice); reconnecting"
        case let .noProgress(kind, offset):
            "reading the \(kind) file made no progress at byte \(offset); reconnecting"
        case .sizeMismatch(let mismatch): mismatch.description
        }
    }
}

