/// Reads JSON text into a ``CanonicalJSON/Node`` tree, so that JSON handed to the store as bytes
/// is brought into canonical form by the same writer as encoded values.
///
/// Numbers are read with Swift's correctly rounded conversions (an integer literal stays an
/// integer), so a `Double` written by JSONEncoder reads back as the same value and is written with
/// the same digits. Strict JSON (RFC 8259): no comments, no trailing commas, no bare values at the
/// top; a key given twice keeps its last value.
package struct CanonicalJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let what: String
    /// Nesting deeper than this is refused instead of exhausting the stack.
    private static let maximumDepth = 512

    /// Parses `bytes`, which must hold one JSON object or array. Throws ``CanonicalJSONError/invalidJSON(_:)``
    /// naming `what` and the byte offset of the problem.
    package static func parse(_ bytes: [UInt8], what: String) throws -> CanonicalJSON.Node {
        var parser = CanonicalJSONParser(bytes: bytes, what: what)
        parser.skipWhitespace()
        guard let first = parser.peek, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            throw CanonicalJSONError.invalidJSON("\(what) must be a JSON object or array, not a bare value.")
        }
        let node = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return node
    }

    private init(bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ problem: String) -> CanonicalJSONError {
        .invalidJSON("\(what) is not valid JSON (\(problem) at byte \(index)). Pass the summary encoded with JSONEncoder.")
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        for byte in literal.utf8 {
            guard peek == byte else { throw error("expected \(literal)") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws -> CanonicalJSON.Node {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        guard let byte = peek else { throw error("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            let node = CanonicalJSON.Node(.object)
            skipWhitespace()
            if peek == UInt8(ascii: "}") { index += 1; return node }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let key = try string()
                skipWhitespace()
                try expect(":")
                node.replace(key: key, with: try value(depth: depth + 1))
                skipWhitespace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                try expect("}")
                return node
            }
        case UInt8(ascii: "["):
            index += 1
            let node = CanonicalJSON.Node(.array)
            skipWhitespace()
            if peek == UInt8(ascii: "]") { index += 1; return node }
            while true {
                node.append(try value(depth: depth + 1))
                skipWhitespace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                try expect("]")
                return node
            }
        case UInt8(ascii: "\""):
            return CanonicalJSON.Node(.string(try string()))
        case UInt8(ascii: "t"):
            try expect("true")
            return CanonicalJSON.Node(.bool(true))
        case UInt8(ascii: "f"):
            try expect("false")
            return CanonicalJSON.Node(.bool(false))
        case UInt8(ascii: "n"):
            try expect("null")
            return CanonicalJSON.Node(.null)
        default:
            return try number()
        }
    }

    private mutating func number() throws -> CanonicalJSON.Node {
        let start = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (0x30...0x39).contains(first) else { throw error("expected a value") }
        while let byte = peek {
            switch byte {
            case 0x30...0x39, UInt8(ascii: "+"), UInt8(ascii: "-"): index += 1
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): isInteger = false; index += 1
            default:
                return try numberNode(String(decoding: bytes[start..<index], as: UTF8.self), isInteger: isInteger)
            }
        }
        return try numberNode(String(decoding: bytes[start..<index], as: UTF8.self), isInteger: isInteger)
    }

    private func numberNode(_ text: String, isInteger: Bool) throws -> CanonicalJSON.Node {
        if isInteger {
            if let value = Int64(text) { return CanonicalJSON.Node(.int(value)) }
            if let value = UInt64(text) { return CanonicalJSON.Node(.uint(value)) }
        }
        guard let value = Double(text), value.isFinite else { throw error("\(text) is not a number JSON can hold") }
        return CanonicalJSON.Node(.number(try CanonicalJSON.format(value)))
    }

    private mutating func string() throws -> String {
        index += 1  // the opening quote
        var out: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { throw error("unfinished escape") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone surrogate") }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default: throw error("unknown escape")
                }
            case 0..<0x20:
                throw error("a control character inside a string")
            default:
                out.append(byte)
            }
        }
        throw error("unfinished string")
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Self.hexValue(byte) else { throw error("expected four hex digits") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
