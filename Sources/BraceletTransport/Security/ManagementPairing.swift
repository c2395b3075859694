import BraceletProtocol

// Pairing-related commands and events of the kernel's management interface (BlueZ
// doc/mgmt-api.txt). Kept beside the discovery part of the interface, in their own file.

extension ManagementOpcode {
    /// Set Bondable: pairings request bonding and keep their keys.
    public static let setBondable: UInt16 = 0x0009
    /// Load Long Term Keys: replaces the adapter's whole list of LE keys.
    public static let loadLongTermKeys: UInt16 = 0x0013
    /// Disconnect: ends the link to one remote device (answered once it is gone).
    public static let disconnect: UInt16 = 0x0014
    /// Set IO Capability (used by every later pairing).
    public static let setIOCapability: UInt16 = 0x0018
    /// Pair Device.
    public static let pairDevice: UInt16 = 0x0019
    /// Unpair Device: removes every key of one remote device.
    public static let unpairDevice: UInt16 = 0x001B
    /// User Confirmation Reply.
    public static let userConfirmReply: UInt16 = 0x001C
    /// User Confirmation Negative Reply.
    public static let userConfirmNegativeReply: UInt16 = 0x001D
    /// User Passkey Reply.
    public static let userPasskeyReply: UInt16 = 0x001E
    /// User Passkey Negative Reply.
    public static let userPasskeyNegativeReply: UInt16 = 0x001F
    /// Set Secure Connections (LE Secure Connections when both sides support it).
    public static let setSecureConnections: UInt16 = 0x002D
}

extension ManagementEventCode {
    /// New Long Term Key.
    public static let newLongTermKey: UInt16 = 0x000A
    /// Device Connected.
    public static let deviceConnected: UInt16 = 0x000B
    /// Device Disconnected.
    public static let deviceDisconnected: UInt16 = 0x000C
    /// User Confirmation Request (Just Works, or numeric comparison).
    public static let userConfirmRequest: UInt16 = 0x000F
    /// User Passkey Request.
    public static let userPasskeyRequest: UInt16 = 0x0010
    /// Authentication Failed.
    public static let authenticationFailed: UInt16 = 0x0011
    /// Device Unpaired.
    public static let deviceUnpaired: UInt16 = 0x0016
}

/// The IO capability a side declares when pairing; with KeyboardOnly on both sides LE pairing uses
/// passkey entry and both sides type the passkey, so a fixed passkey works (a display side would
/// draw a random one).
public enum IOCapability: UInt8, Sendable, Hashable {
    /// Shows a passkey.
    case displayOnly = 0
    /// Shows a number and asks yes / no.
    case displayYesNo = 1
    /// Enters a passkey.
    case keyboardOnly = 2
    /// Neither: Just Works (unauthenticated).
    case noInputNoOutput = 3
    /// Both.
    case keyboardDisplay = 4

    /// The capability a central declares to reach `level` with a device that has no display: passkey
    /// entry (a keyboard) for an authenticated link, Just Works below, since a keyboard would ask a
    /// device without one for MITM protection it cannot give (its kernel refuses: Authentication
    /// Requirements). The kernel takes the adapter's capability when a link is set up.
    public static func forPairing(at level: LESecurityLevel) -> IOCapability {
        level == .high ? .keyboardOnly : .noInputNoOutput
    }
}

/// A remote device as the management interface names it: address and address type
/// (0 BR/EDR, 1 LE public, 2 LE random).
public struct ManagementAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address.
    public var address: BluetoothAddress
    /// The management address type.
    public var type: UInt8

    /// The LE device `address` of `type`.
    public init(_ address: BluetoothAddress, _ type: LEAddressType) {
        self.address = address
        self.type = type == .public ? 1 : 2
    }

    /// Decodes the 7 bytes at `offset`; `nil` when they are not there.
    public init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, bytes.count >= offset + 7, let address = BluetoothAddress(wireBytes: Array(bytes[offset..<(offset + 6)])) else {
            return nil
        }
        self.address = address
        type = bytes[offset + 6]
    }

    /// The 7 bytes on the wire.
    public var wireBytes: [UInt8] { address.wireBytes + [type] }

    /// `AA:BB:CC:DD:EE:FF (public)`.
    public var description: String { "\(address) (\(type == 1 ? "public" : type == 2 ? "random" : "BR/EDR"))" }
}

/// Parameters of the pairing commands.
public enum PairingCommand {
    /// User Passkey Reply: `passkey` (0...999999) for `device`.
    public static func passkeyReply(to device: ManagementAddress, passkey: UInt32) -> [UInt8] {
        var out = device.wireBytes
        out.appendLittleEndian(passkey)
        return out
    }

    /// Unpair Device; `disconnect` also ends a connection to it.
    public static func unpair(_ device: ManagementAddress, disconnect: Bool) -> [UInt8] {
        device.wireBytes + [disconnect ? 1 : 0]
    }

    /// Pair Device with `capability` for this pairing.
    public static func pair(_ device: ManagementAddress, capability: IOCapability) -> [UInt8] {
        device.wireBytes + [capability.rawValue]
    }

    /// Load Long Term Keys: the count, then each key's 36 bytes.
    public static func loadLongTermKeys(_ keys: [LongTermKey]) -> [UInt8] {
        var out: [UInt8] = []
        out.appendLittleEndian(UInt16(keys.count))
        for key in keys { out += key.wireBytes }
        return out
    }
}

/// A management event that matters for pairing.
public enum PairingEvent: Sendable, Hashable, CustomStringConvertible {
    /// The kernel asks for the passkey of a pairing with `device`.
    case passkeyRequested(ManagementAddress)
    /// A pairing produced a key; `storeHint` says it belongs to a bond (keep it).
    case newLongTermKey(LongTermKey, storeHint: Bool)
    /// Pairing or authentication with `device` failed (management status).
    case authenticationFailed(ManagementAddress, status: UInt8)
    /// A link to `device` came up.
    case connected(ManagementAddress)
    /// A link to `device` went down (management reason: 1 timeout, 2 local, 3 remote, 4 authentication failure).
    case disconnected(ManagementAddress, reason: UInt8)
    /// The keys of `device` were removed.
    case unpaired(ManagementAddress)
    /// bluetoothd called the D-Bus agent that answers for this side (``BluezAgent``); not a
    /// management event, reported beside them so one stream tells how the pairing went.
    case bluetoothdAgent(BluezAgentEvent)

    /// The event in `packet`, or `nil` when it is another event or too short.
    public init?(_ packet: ManagementPacket) {
        let p = packet.parameters
        switch packet.code {
        case ManagementEventCode.userPasskeyRequest:
            guard let device = ManagementAddress(p, at: 0) else { return nil }
            self = .passkeyRequested(device)
        case ManagementEventCode.newLongTermKey:
            guard p.count >= 37, let key = LongTermKey(wireBytes: Array(p[1..<37])) else { return nil }
            self = .newLongTermKey(key, storeHint: p[0] != 0)
        case ManagementEventCode.authenticationFailed:
            guard p.count >= 8, let device = ManagementAddress(p, at: 0) else { return nil }
            self = .authenticationFailed(device, status: p[7])
        case ManagementEventCode.deviceConnected:
            guard let device = ManagementAddress(p, at: 0) else { return nil }
            self = .connected(device)
        case ManagementEventCode.deviceDisconnected:
            guard p.count >= 8, let device = ManagementAddress(p, at: 0) else { return nil }
            self = .disconnected(device, reason: p[7])
        case ManagementEventCode.deviceUnpaired:
            guard let device = ManagementAddress(p, at: 0) else { return nil }
            self = .unpaired(device)
        default:
            return nil
        }
    }

    /// One line for a log.
    public var description: String {
        switch self {
        case .passkeyRequested(let d): "passkey requested for \(d)"
        case let .newLongTermKey(key, hint): "new \(key.isAuthenticated ? "authenticated" : "unauthenticated") long term key for \(key.peer)\(hint ? " (bonded)" : " (not kept)")"
        case let .authenticationFailed(d, status): "authentication with \(d) failed (status 0x\(hexString([status])))"
        case .connected(let d): "connected to \(d)"
        case let .disconnected(d, reason): "disconnected from \(d) (reason \(reason))"
        case .unpaired(let d): "keys of \(d) removed"
        case .bluetoothdAgent(let event): event.description
        }
    }
}
