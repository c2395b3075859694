import BraceletDecoder
import BraceletStore
import Foundation

/// A JSON tree for documents whose shape is set by an outside schema (Open mHealth, IEEE 1752, FHIR).
///
/// Only values that exist are put in: a missing measurement is left out of the tree (or written as
/// `.null` where a schema requires the key), never as 0. Written by the store's canonical JSON writer
/// (sorted keys, no escaped slashes) so equal content gives equal bytes.
public enum JSONValue: Sendable, Equatable, Encodable {
    /// A string.
    case string(String)
    /// A whole number.
    case int(Int64)
    /// A number with a fraction.
    case double(Double)
    /// true or false.
    case bool(Bool)
    /// An explicit null (only where a schema requires the key).
    case null
    /// An array.
    indirect case array([JSONValue])
    /// An object.
    indirect case object([String: JSONValue])

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case .null: try container.encodeNil()
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// An object of the entries whose value is present; nil entries are left out.
    public static func compact(_ entries: [String: JSONValue?]) -> JSONValue {
        .object(entries.compactMapValues { $0 })
    }

    /// The value as JSON text bytes (sorted keys; pretty-printed when asked).
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        try ExportJSON.encode(self, prettyPrinted: prettyPrinted)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral {
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

/// How the exports write JSON: the store's canonical writer (``BraceletStore/CanonicalJSON``), indented
/// for files people read, compact for deliveries, so exports, summaries and outbox payloads read alike.
enum ExportJSON {
    static func encode<T: Encodable>(_ value: T, prettyPrinted: Bool) throws -> Data {
        do {
            let canonical = try CanonicalJSON.bytes(of: value, what: "the export")
            return Data(prettyPrinted ? CanonicalJSON.prettyPrinted(canonical) : canonical)
        } catch {
            throw ExportError.encoding("could not write the export as JSON: \(error)")
        }
    }
}
