import CBlueZ
import Glibc

/// The security of the link under a connected L2CAP socket, as the kernel reports it (BT_SECURITY):
/// the link's level and, once encrypted, the key size. Works on either side (a connected or an
/// accepted socket).
public struct LinkSecurity: Sendable, Hashable, CustomStringConvertible {
    /// The link's level.
    public var level: LESecurityLevel
    /// The encryption key size in bytes; 0 while the link is not encrypted.
    public var keySize: Int

    /// Whether the link is encrypted.
    public var isEncrypted: Bool { keySize > 0 && level != .low }

    /// Creates a value (tests, non-Bluetooth links).
    public init(level: LESecurityLevel, keySize: Int) {
        self.level = level
        self.keySize = keySize
    }

    /// The security of the link under `descriptor`; `nil` when it is not a Bluetooth socket (a Unix
    /// socket to a simulated bracelet) or the kernel does not say.
    public static func current(of descriptor: Int32) -> LinkSecurity? {
        var value = bt_security()
        var length = socklen_t(MemoryLayout<bt_security>.size)
        guard descriptor >= 0, getsockopt(descriptor, SOL_BLUETOOTH, BT_SECURITY, &value, &length) == 0 else { return nil }
        // The kernel reports 0 (BT_SECURITY_SDP) for links that never asked; that is no security.
        return LinkSecurity(level: LESecurityLevel(rawValue: value.level) ?? (value.level > 3 ? .high : .low), keySize: Int(value.key_size))
    }

    /// `encrypted, authenticated, 16-byte key` or `not encrypted`.
    public var description: String {
        switch level {
        case .low: "not encrypted"
        case .medium: "encrypted (unauthenticated), \(keySize)-byte key"
        case .high: "encrypted and authenticated, \(keySize)-byte key"
        }
    }
}

extension LESecurityLevel: CustomStringConvertible, Comparable {
    /// `low`, `medium` or `high`, as BT_SECURITY names them.
    public var description: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }

    /// Ordered by strength.
    public static func < (a: LESecurityLevel, b: LESecurityLevel) -> Bool { a.rawValue < b.rawValue }
}
