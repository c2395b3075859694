import BraceletProtocol
import Foundation

/// The one canonical JSON form of the project: no whitespace, object keys sorted, fixed number
/// formatting, so that equal content has equal bytes and an equal content hash, which receivers
/// deduplicate on.
///
/// The bytes are written directly from a value's `Codable` conformance (``encode(_:what:)``), with
/// no Foundation round trip. They are identical to what the store wrote before this writer existed
/// (JSONEncoder, then JSONSerialization with `.sortedKeys` and `.withoutEscapingSlashes`), because
/// stored content hashes and delivered outbox payloads were computed from those bytes:
/// - keys are ordered as Foundation's `.sortedKeys` orders them (numeric, case-insensitive, with a
///   forced tie-break: `a_b` < `a9` < `a10` < `ab` < `aB` < `Ab`), not by raw bytes;
/// - integers are written in decimal; a `Double` as its shortest round-trip text (`36.5`, `1e-05`,
///   `1e+16`) with a trailing `.0` dropped (`3.0` is `3`), and negative zero as `0`; NaN and the
///   infinities are an error;
/// - strings escape `"`, `\`, and the control characters below U+0020 (`\b \f \n \r \t` short,
///   others `\u00xx`); `/` and everything else are written as UTF-8.
///
/// The one known difference from the old bytes: a `Double` below 1e-4 in magnitude is written in
/// exponent form (`5.4e-08`) where Foundation wrote plain decimals (`0.000000054`); no summary holds
/// such a value. JSON handed over as bytes (``canonicalize(_:what:)``) is read by
/// ``CanonicalJSONParser`` and written by the same writer.
public enum CanonicalJSON {
    /// Encodes `value` into canonical bytes. Throws ``CanonicalJSONError/notEncodable(_:)`` naming
    /// `what` when a number is NaN or infinite or the value's encoding fails.
    public static func encode<T: Encodable>(_ value: T, what: String) throws -> Data {
        Data(try bytes(of: value, what: what))
    }

    /// Encodes `value` into canonical bytes (see ``encode(_:what:)``).
    public static func bytes<T: Encodable>(of value: T, what: String) throws -> [UInt8] {
        let root = try node(of: value, what: what)
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(root, into: &out)
        return out
    }

    /// The tree of `value`, for ``write(_:into:)``.
    package static func node<T: Encodable>(of value: T, what: String) throws -> Node {
        let root = Node()
        do {
            try CanonicalEncoder.encode(value, into: root, codingPath: [])
        } catch let error as CanonicalJSONError {
            throw error
        } catch {
            throw CanonicalJSONError.notEncodable("\(what) could not be encoded as JSON: \(error)")
        }
        return root
    }

    /// Parses `json` and writes it back in canonical form. Throws ``CanonicalJSONError/invalidJSON(_:)``
    /// when `json` is not a JSON object or array.
    public static func canonicalize(_ json: Data, what: String) throws -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        write(try CanonicalJSONParser.parse([UInt8](json), what: what), into: &out)
        return Data(out)
    }

    /// One JSON value under construction. A class, so that containers handed out by the encoder can
    /// fill in their part of the tree after they were created.
    package final class Node {
        /// What the node holds.
        public enum Value {
            /// Nothing encoded yet (written as `{}`, as JSONEncoder writes a value that encodes nothing).
            case empty
            /// `null`.
            case null
            /// `true` or `false`.
            case bool(Bool)
            /// A signed integer.
            case int(Int64)
            /// An unsigned integer.
            case uint(UInt64)
            /// A floating-point number, already formatted by ``format(_:codingPath:)``.
            case number(String)
            /// A string (escaped when written).
            case string(String)
            /// An array.
            case array
            /// An object.
            case object
            /// Bytes that are already canonical JSON, written as they are.
            case canonical([UInt8])
        }

        /// The node's value; for `.array` and `.object` the children are in ``elements``.
        public var value: Value = .empty
        /// Object keys, in the order they were first encoded (parallel to ``elements``).
        public private(set) var keys: [String] = []
        /// Array elements or object values.
        public private(set) var elements: [Node] = []

        /// An empty node.
        public init() {}

        /// A node holding `value`.
        public init(_ value: Value) { self.value = value }

        func becomeObject() {
            if case .object = value { return }
            value = .object
            keys = []
            elements = []
        }

        func becomeArray() {
            if case .array = value { return }
            value = .array
            keys = []
            elements = []
        }

        /// The value node under `key`, created when new; a key encoded twice keeps its last value.
        public func child(forKey key: String) -> Node {
            becomeObject()
            if let index = keys.firstIndex(of: key) { return elements[index] }
            let node = Node()
            keys.append(key)
            elements.append(node)
            return node
        }

        /// The value under `key` when this is an object that has it.
        package func value(forKey key: String) -> Node? {
            guard case .object = value, let index = keys.firstIndex(of: key) else { return nil }
            return elements[index]
        }

        /// The string under `key` when this is an object that has a string there.
        package func string(forKey key: String) -> String? {
            guard case .string(let text)? = value(forKey: key)?.value else { return nil }
            return text
        }

        /// Appends a new element node to this array node.
        public func appendElement() -> Node {
            becomeArray()
            let node = Node()
            elements.append(node)
            return node
        }
    }

    /// Writes `node` in canonical form (see ``CanonicalJSON``).
    package static func write(_ node: Node, into out: inout [UInt8]) {
        switch node.value {
        case .empty: out.append(contentsOf: [0x7B, 0x7D])
        case .null: appendNull(to: &out)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .int(v): TextBytes.append(v, to: &out)
        case let .uint(v): TextBytes.append(v, to: &out)
        case let .number(text): out.append(contentsOf: text.utf8)
        case let .string(s): appendString(s, to: &out)
        case let .canonical(bytes): out.append(contentsOf: bytes)
        case .array:
            out.append(0x5B)
            for (i, element) in node.elements.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(element, into: &out)
            }
            out.append(0x5D)
        case .object:
            out.append(0x7B)
            for (n, i) in KeyOrder.shared.order(of: node.keys).enumerated() {
                if n > 0 { out.append(0x2C) }
                appendString(node.keys[i], to: &out)
                out.append(0x3A)
                write(node.elements[i], into: &out)
            }
            out.append(0x7D)
        }
    }

    /// The canonical text of a `Double`: shortest round-trip digits without a trailing `.0`, and
    /// `0` for negative zero. Throws for NaN and the infinities, which JSON cannot hold.
    package static func format(_ value: Double, codingPath: @autoclosure () -> [any CodingKey] = []) throws -> String {
        guard value.isFinite else { throw nonFinite(value, path: codingPath().map(\.stringValue).joined(separator: ".")) }
        if value == 0 { return "0" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// The error for a number JSON cannot hold, at `path` (dotted keys; empty at the top level).
    static func nonFinite(_ value: Double, path: String) -> CanonicalJSONError {
        .notEncodable("\(value) at \(path.isEmpty ? "the top level" : path) is not a number JSON can hold; a missing value must be nil, never NaN or infinity.")
    }

    /// The canonical text of a `Float`: as JSONEncoder writes it (its own shortest digits).
    package static func format(_ value: Float, codingPath: @autoclosure () -> [any CodingKey] = []) throws -> String {
        guard value.isFinite else { return try format(Double(value), codingPath: codingPath()) }
        if value == 0 { return "0" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Appends `s` as a JSON string literal with the canonical escapes.
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x08: out.append(contentsOf: [0x5C, 0x62])
            case 0x0C: out.append(contentsOf: [0x5C, 0x66])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30])
                out.append(contentsOf: hexString(byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

extension CanonicalJSON.Node {
    /// Replaces the node under `key`.
    func replace(key: String, with node: CanonicalJSON.Node) {
        becomeObject()
        if let index = keys.firstIndex(of: key) { elements[index] = node } else { keys.append(key); elements.append(node) }
    }

    /// Appends `node` as an array element.
    func append(_ node: CanonicalJSON.Node) {
        becomeArray()
        elements.append(node)
    }
}
