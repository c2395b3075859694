import BraceletProtocol
import BraceletTransport

/// Where the gateway reaches a bracelet: over the radio by its address, or a simulated bracelet
/// on a Unix socket. Stored as text (`ble:ADDRESS`, `unix:PATH`) in the enrolment's key.
public enum GatewayEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A bracelet over Bluetooth LE.
    case radio(BluetoothAddress)
    /// A simulated bracelet serving on a Unix socket.
    case unix(path: String)

    /// Parses a stored endpoint, `--via unix:PATH`, or a `--device` address. A control character
    /// anywhere is refused (``OperatorText``): the endpoint names the bracelet in every log line.
    public init(_ text: String) throws(GatewayError) {
        guard (try? OperatorText.check(text, what: "the endpoint")) != nil else { throw .invalidEndpoint(text) }
        if text.hasPrefix("unix:") {
            guard text.count > 5 else { throw .invalidEndpoint(text) }
            self = .unix(path: String(text.dropFirst(5)))
            return
        }
        let address = text.hasPrefix("ble:") ? String(text.dropFirst(4)) : text
        guard let parsed = BluetoothAddress(address) else { throw .invalidEndpoint(text) }
        self = .radio(parsed)
    }

    /// The stored text: `ble:ADDRESS` or `unix:PATH`.
    public var description: String {
        switch self {
        case .radio(let address): "ble:\(address)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
