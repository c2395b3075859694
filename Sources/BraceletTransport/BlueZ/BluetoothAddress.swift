import BraceletProtocol

/// A 48-bit Bluetooth device address, written most significant byte first (`C0:FF:EE:00:11:22`).
public struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes in wire order (least significant first), as HCI and `bdaddr_t` hold them.
    public var wireBytes: [UInt8]

    /// Wraps six bytes in wire order (least significant first); `nil` for any other length.
    public init?(wireBytes: [UInt8]) {
        guard wireBytes.count == 6 else { return nil }
        self.wireBytes = wireBytes
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (hex, either case); `nil` when the text is not six bytes.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        wireBytes = bytes.reversed()
    }

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, upper case.
    public var description: String {
        hexString(wireBytes.reversed(), uppercase: true, separator: ":")
    }
}

/// The kind of LE address a device uses; L2CAP needs it to connect.
public enum LEAddressType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A public (IEEE-assigned) address. BlueZ's BDADDR_LE_PUBLIC.
    case `public` = 1
    /// A random (static or private) address, what most wearables use. BlueZ's BDADDR_LE_RANDOM.
    case random = 2

    /// Maps the address type byte of an HCI advertising report (0 public, 1 random, 2/3 resolved
    /// identities) to the socket address type.
    public init(hciAddressType: UInt8) {
        self = hciAddressType & 0x01 == 0 ? .public : .random
    }

    /// `public` or `random`.
    public var description: String { self == .public ? "public" : "random" }
}

/// The security level requested on an L2CAP connection (BT_SECURITY).
public enum LESecurityLevel: UInt8, Sendable, Hashable {
    /// No encryption.
    case low = 1
    /// Encrypted, unauthenticated pairing ("Just Works").
    case medium = 2
    /// Encrypted with authenticated pairing (passkey).
    case high = 3
}
