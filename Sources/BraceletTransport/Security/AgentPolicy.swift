import BraceletProtocol

/// What the BlueZ agent did with one call from bluetoothd.
public enum BluezAgentEvent: Sendable, Hashable, CustomStringConvertible {
    /// `RequestPasskey` for the bracelet, answered with `passkey`.
    case passkeyEntered(device: BluetoothAddress, passkey: UInt32)
    /// A call refused with `org.bluez.Error.Rejected` (`device` is the object path it named).
    case refused(method: String, device: String?, reason: String)
    /// bluetoothd released the agent (it no longer uses it).
    case released
    /// bluetoothd cancelled its pending request (the pairing ended).
    case cancelled

    /// One line for a log.
    public var description: String {
        switch self {
        case let .passkeyEntered(device, passkey): "passkey \(formatPasskey(passkey)) given to bluetoothd (Agent1.RequestPasskey) for \(device)"
        case let .refused(method, device, reason): "refused bluetoothd's Agent1.\(method)\(device.map { " for \($0)" } ?? ""): \(reason)"
        case .released: "bluetoothd released the agent"
        case .cancelled: "bluetoothd cancelled its request"
        }
    }
}

/// How the agent answers each `org.bluez.Agent1` method (BlueZ doc/org.bluez.Agent.rst):
/// `RequestPasskey` for the bracelet on the agent's adapter gets the passkey; `Release` and
/// `Cancel` an empty reply; every other request (a PIN code, a confirmation, an authorization, a
/// passkey to display, or any request about another device) is refused with
/// `org.bluez.Error.Rejected`, since listen pairs exactly one bracelet by passkey entry and must not
/// give its passkey to, or accept, any other pairing. Only bluetoothd's calls are answered.
struct AgentPolicy: Sendable {
    /// The error a refusal carries.
    static let rejected = "org.bluez.Error.Rejected"
    /// The interface bluetoothd calls.
    static let interface = "org.bluez.Agent1"

    var settings: BluezAgent.Settings
    var objectPath: String
    /// bluetoothd's unique bus name.
    var bluetoothd: String

    /// The reply to `call` (`nil` for signals and replies, which need none) and what it did.
    func answer(_ call: DBusMessage) -> (reply: DBusMessage?, event: BluezAgentEvent?) {
        guard call.kind == .methodCall, let member = call.member else { return (nil, nil) }
        guard call.interface == Self.interface, call.path == objectPath else {
            return (call.errorReply("org.freedesktop.DBus.Error.UnknownMethod",
                                    "\(objectPath) implements only \(Self.interface)"), nil)
        }
        let devicePath: String? = call.arguments.lazy.compactMap { if case .objectPath(let p) = $0 { p } else { nil } }.first
        func refuse(_ reason: String) -> (DBusMessage?, BluezAgentEvent?) {
            (call.errorReply(Self.rejected, reason), .refused(method: member, device: devicePath, reason: reason))
        }
        guard call.sender == bluetoothd else { return refuse("only bluetoothd (\(bluetoothd)) may call this agent") }
        switch member {
        case "Release": return (call.methodReturn(), .released)
        case "Cancel": return (call.methodReturn(), .cancelled)
        case "RequestPasskey":
            guard let devicePath, let (adapter, device) = Self.device(devicePath) else { return refuse("no device object path given") }
            guard adapter == settings.adapter, device == settings.device else {
                return refuse("listen answers only for \(settings.device) on \(settings.adapter)")
            }
            return (call.methodReturn([.uint32(settings.passkey)]), .passkeyEntered(device: device, passkey: settings.passkey))
        case "RequestPinCode", "DisplayPinCode", "DisplayPasskey", "RequestConfirmation", "RequestAuthorization", "AuthorizeService":
            return refuse("listen pairs its bracelet by passkey entry only")
        default:
            return (call.errorReply("org.freedesktop.DBus.Error.UnknownMethod", "\(Self.interface) has no method \(member)"), nil)
        }
    }

    /// The adapter and device of a BlueZ device path (`/org/bluez/hci0/dev_00_AA_01_01_00_01`).
    static func device(_ path: String) -> (adapter: String, address: BluetoothAddress)? {
        let parts = path.split(separator: "/")
        guard parts.count == 4, parts[0] == "org", parts[1] == "bluez", parts[3].hasPrefix("dev_"),
              let address = BluetoothAddress(parts[3].dropFirst(4).replacingUnderscores()) else { return nil }
        return (String(parts[2]), address)
    }
}

private extension Substring {
    /// `00_AA_01` as `00:AA:01`.
    func replacingUnderscores() -> String { String(map { $0 == "_" ? ":" : $0 }) }
}
