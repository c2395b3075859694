import BraceletProtocol
import BraceletTransport

/// What a served simulated bracelet did, for logs and for tests that check the client's behaviour
/// from the bracelet's side.
public enum SimulatorEvent: Sendable, Equatable, CustomStringConvertible {
    /// A client connected (connection number from 1).
    case connected(Int)
    /// The client disconnected.
    case disconnected(Int)
    /// The simulated bracelet dropped the link (a `drop-link-at` or `reboot-at` fault).
    case droppedLink(Int)
    /// A command frame arrived.
    case command([UInt8])
    /// A sealed file was erased; `file` holds its exact bytes.
    case erased(kind: FileKind, file: [UInt8])
    /// A live Heart Rate notification went out.
    case heartRate(HeartRateMeasurement)
    /// A standard sensor's value went out (a ``LiveFeed``'s).
    case sensorValue(handle: UInt16, value: [UInt8])
    /// A protected write was refused: the link (`nil`: not Bluetooth) was below the required level.
    case refused(ATTOpcode, link: LinkSecurity?)

    /// One line for a log.
    public var description: String {
        switch self {
        case .connected(let n): "connection \(n): client connected"
        case .disconnected(let n): "connection \(n): client disconnected"
        case .droppedLink(let n): "connection \(n): link dropped by fault injection"
        case .command(let frame): "command " + hexString(frame, separator: " ")
        case let .erased(kind, file): "erased \(kind) file of \(file.count) bytes, trailing CRC-32 \(hexString(file.suffix(4)))"
        case .heartRate(let m): "heart rate \(m.bpm) bpm, \(m.rrIntervals1024.count) RR"
        case let .sensorValue(handle, value): "value of handle \(handle): " + hexString(value, separator: " ")
        case let .refused(opcode, link): "refused \(opcode) on a link \(link?.description ?? "without Bluetooth security")"
        }
    }
}

