import BraceletProtocol

/// Why the gateway refused something; each says what to do.
public enum GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An endpoint that is neither `unix:PATH` nor a Bluetooth address.
    case invalidEndpoint(String)
    /// A stored setting of an enrolment is not valid.
    case invalidSettings(endpoint: String, reason: String)
    /// `--metrics` named an address that is not loopback, or none that can be used.
    case metricsAddress(String)
    /// The metrics socket could not be opened.
    case metricsSocket(String)

    /// Why `text` is refused for a control character, if it is.
    private static func controlCharacter(in text: String) -> String? {
        do { try OperatorText.check(text, what: "it"); return nil } catch { return error.description }
    }

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .invalidEndpoint(let text):
            if let refused = Self.controlCharacter(in: text) {
                "'\(OperatorText.escaped(text))' is not a bracelet endpoint: \(refused)"
            } else {
                "'\(text)' is not a bracelet endpoint: give --device AA:BB:CC:DD:EE:FF or --via unix:PATH"
            }
        case let .invalidSettings(endpoint, reason):
            "the settings enrolled for \(endpoint) are not valid (\(reason)); enrol it again with a valid value (bracelet gateway enroll --help)"
        case .metricsAddress(let text):
            "--metrics \(text): give a loopback address and port, 127.0.0.1:PORT or [::1]:PORT (metrics are never served beyond this machine)"
        case .metricsSocket(let reason):
            "cannot serve metrics: \(reason); pick another port or drop --metrics"
        }
    }
}
