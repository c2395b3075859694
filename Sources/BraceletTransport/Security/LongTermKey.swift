import BraceletProtocol

/// An LE Long Term Key as the management interface carries it (New Long Term Key, Load Long Term
/// Keys): 36 bytes, `[address 6][address type][key type][central][encryption size][ediv u16]
/// [random u64][value 16]`. A bond is the keys of one peer.
public struct LongTermKey: Sendable, Hashable {
    /// The peer (identity address).
    public var peer: ManagementAddress
    /// 0 unauthenticated legacy, 1 authenticated legacy, 2 unauthenticated P-256, 3 authenticated P-256, 4 debug.
    public var keyType: UInt8
    /// 1 when the key is used when this side is the central.
    public var central: UInt8
    /// The encryption key size in bytes.
    public var encryptionSize: UInt8
    /// The encrypted diversifier (legacy keys).
    public var ediv: UInt16
    /// The random number (legacy keys).
    public var random: UInt64
    /// The 16 key bytes.
    public var value: [UInt8]

    /// The size of one key on the wire.
    public static let wireLength = 36

    /// Whether the key came from an authenticated (passkey) pairing.
    public var isAuthenticated: Bool { keyType == 1 || keyType == 3 }

    /// Decodes 36 bytes; `nil` for another length.
    public init?(wireBytes b: [UInt8]) {
        guard b.count == Self.wireLength, let peer = ManagementAddress(b, at: 0), let ediv: UInt16 = b.readLittleEndian(at: 10),
              let random: UInt64 = b.readLittleEndian(at: 12) else { return nil }
        self.peer = peer
        keyType = b[7]
        central = b[8]
        encryptionSize = b[9]
        self.ediv = ediv
        self.random = random
        value = Array(b[20..<36])
    }

    /// The 36 bytes on the wire.
    public var wireBytes: [UInt8] {
        var out = peer.wireBytes + [keyType, central, encryptionSize]
        out.appendLittleEndian(ediv)
        out.appendLittleEndian(random)
        return out + value
    }
}
