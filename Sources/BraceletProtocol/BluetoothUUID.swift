/// An attribute type as ATT carries it: a 16-bit Bluetooth SIG UUID (2 bytes on the wire) or a full
/// 128-bit UUID (16 bytes on the wire). Both are little-endian on the wire.
///
/// A 16-bit UUID and its 128-bit expansion over the Bluetooth Base UUID are different values of this
/// type (they have different wire forms); compare ``expanded128`` when you need them to match.
public enum BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// A 16-bit SIG-assigned UUID such as 0x2A37 (Heart Rate Measurement).
    case uuid16(UInt16)
    /// A 128-bit UUID, most significant byte first (the order of its text form).
    case uuid128(UUID128)

    /// A SIG-assigned 16-bit UUID, e.g. `BluetoothUUID(0x180D)`.
    public init(_ short: UInt16) { self = .uuid16(short) }

    /// Parses the 8-4-4-4-12 text form of a 128-bit UUID; `nil` when it is not one.
    public init?(_ text: String) {
        guard let uuid = UUID128(string: text) else { return nil }
        self = .uuid128(uuid)
    }

    /// Decodes a UUID from its little-endian wire form of 2 or 16 bytes; `nil` for any other length.
    public init?(wireBytes bytes: some Collection<UInt8>) {
        let b = Array(bytes)
        switch b.count {
        case 2: self = .uuid16(UInt16(b[0]) | UInt16(b[1]) << 8)
        case 16: self = .uuid128(UUID128(bigEndianBytes: b.reversed()))
        default: return nil
        }
    }

    /// The little-endian wire form: 2 or 16 bytes.
    public var wireBytes: [UInt8] {
        switch self {
        case .uuid16(let v): [UInt8(v & 0xFF), UInt8(v >> 8)]
        case .uuid128(let u): u.bytes.reversed()
        }
    }

    /// The number of bytes on the wire: 2 or 16.
    public var wireLength: Int {
        switch self {
        case .uuid16: 2
        case .uuid128: 16
        }
    }

    /// The 128-bit form; a 16-bit UUID is expanded over the Bluetooth Base UUID
    /// 0000xxxx-0000-1000-8000-00805F9B34FB.
    public var expanded128: UUID128 {
        switch self {
        case .uuid16(let v):
            var b: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]
            b[2] = UInt8(v >> 8)
            b[3] = UInt8(v & 0xFF)
            return UUID128(bigEndianBytes: b)
        case .uuid128(let u):
            return u
        }
    }

    /// `0x2A37` for a 16-bit UUID, the usual 8-4-4-4-12 text for a 128-bit one.
    public var description: String {
        switch self {
        case .uuid16(let v): "0x" + hexString(v, uppercase: true)
        case .uuid128(let u): u.description
        }
    }
}

/// A 128-bit UUID stored as 16 bytes, most significant first (the order of its text form).
public struct UUID128: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes, most significant first.
    public private(set) var bytes: [UInt8]

    /// Builds a UUID from 16 bytes, most significant first. Shorter input is padded with zero bytes
    /// at the end and longer input is cut to 16 bytes; use ``init(string:)`` for checked input.
    public init(bigEndianBytes: some Collection<UInt8>) {
        var b = Array(bigEndianBytes.prefix(16))
        while b.count < 16 { b.append(0) }
        bytes = b
    }

    /// Parses the 8-4-4-4-12 text form (hex digits, either case). Returns `nil` if the text is not
    /// exactly 32 hex digits with dashes at the usual places.
    public init?(string: String) {
        let chars = Array(string.utf8)
        guard chars.count == 36 else { return nil }
        var out: [UInt8] = []
        var nibble: UInt8? = nil
        for (i, c) in chars.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let high = nibble {
                out.append(high << 4 | v)
                nibble = nil
            } else {
                nibble = v
            }
        }
        self.init(bigEndianBytes: out)
    }

    /// Upper-case 8-4-4-4-12 text form.
    public var description: String {
        [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hexString(bytes[$0], uppercase: true) }.joined(separator: "-")
    }
}
