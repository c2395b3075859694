/// A Swift `Encoder` that builds a ``CanonicalJSON/Node`` tree from any `Encodable` value, so the
/// canonical bytes come from the type's own `Codable` conformance: a field added to a summary type
/// reaches the canonical JSON (and its content hash) without any edit here.
///
/// It follows JSONEncoder's default strategies for the values summaries hold: keys are the coding
/// keys' string values, `encodeIfPresent` of `nil` leaves the key out, `encodeNil` writes `null`,
/// a nested super encoder is stored under the key `super`. Foundation's special cases (`Data` as
/// Base64, `URL` as a string, `Date` strategies) are not applied: those types encode through their
/// own `Codable` conformance.
struct CanonicalEncoder: Encoder {
    let node: CanonicalJSON.Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: CanonicalJSON.Node, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }

    /// Encodes `value` into `node`: scalars directly, a ``CanonicalJSONWritable`` value (or an array
    /// of them) as the bytes it writes itself, anything else through its `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, into node: CanonicalJSON.Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let v as String: node.value = .string(v)
        case let v as Bool: node.value = .bool(v)
        case let v as Int: node.value = .int(Int64(v))
        case let v as Int64: node.value = .int(v)
        case let v as Int32: node.value = .int(Int64(v))
        case let v as Double: node.value = .number(try CanonicalJSON.format(v, codingPath: codingPath))
        case let v as any CanonicalJSONWritable:
            var bytes: [UInt8] = []
            try v.appendCanonicalJSON(to: &bytes, codingPath: codingPath)
            node.value = .canonical(bytes)
        default: try value.encode(to: CanonicalEncoder(node: node, codingPath: codingPath))
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: CanonicalJSON.Node
        let codingPath: [any CodingKey]

        func child(_ key: Key) -> CanonicalJSON.Node { node.child(forKey: key.stringValue) }

        mutating func encodeNil(forKey key: Key) throws { child(key).value = .null }
        mutating func encode(_ value: Bool, forKey key: Key) throws { child(key).value = .bool(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { child(key).value = .string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            child(key).value = .number(try CanonicalJSON.format(value, codingPath: codingPath + [key]))
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            child(key).value = .number(try CanonicalJSON.format(value, codingPath: codingPath + [key]))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { child(key).value = .int(Int64(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).value = .int(Int64(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).value = .int(Int64(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).value = .int(Int64(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).value = .int(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).value = .uint(value) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try CanonicalEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = child(key)
            nested.becomeObject()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: nested, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = child(key)
            nested.becomeArray()
            return UnkeyedContainer(node: nested, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            CanonicalEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            CanonicalEncoder(node: child(key), codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: CanonicalJSON.Node
        let codingPath: [any CodingKey]
        var count: Int { node.elements.count }

        func append() -> CanonicalJSON.Node { node.appendElement() }
        /// The path of the next element. Arrays of summary slots hold thousands of elements, and a
        /// new path array per element cost more than the encoding itself; an error inside an
        /// element names the array, which is precise enough to find the value.
        var nextPath: [any CodingKey] { codingPath }

        mutating func encodeNil() throws { append().value = .null }
        mutating func encode(_ value: Bool) throws { append().value = .bool(value) }
        mutating func encode(_ value: String) throws { append().value = .string(value) }
        mutating func encode(_ value: Double) throws { append().value = .number(try CanonicalJSON.format(value, codingPath: nextPath)) }
        mutating func encode(_ value: Float) throws { append().value = .number(try CanonicalJSON.format(value, codingPath: nextPath)) }
        mutating func encode(_ value: Int) throws { append().value = .int(Int64(value)) }
        mutating func encode(_ value: Int8) throws { append().value = .int(Int64(value)) }
        mutating func encode(_ value: Int16) throws { append().value = .int(Int64(value)) }
        mutating func encode(_ value: Int32) throws { append().value = .int(Int64(value)) }
        mutating func encode(_ value: Int64) throws { append().value = .int(value) }
        mutating func encode(_ value: UInt) throws { append().value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt8) throws { append().value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt16) throws { append().value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt32) throws { append().value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt64) throws { append().value = .uint(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = nextPath
            try CanonicalEncoder.encode(value, into: append(), codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            let nested = append()
            nested.becomeObject()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: nested, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            let nested = append()
            nested.becomeArray()
            return UnkeyedContainer(node: nested, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            return CanonicalEncoder(node: append(), codingPath: path)
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let node: CanonicalJSON.Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.value = .null }
        mutating func encode(_ value: Bool) throws { node.value = .bool(value) }
        mutating func encode(_ value: String) throws { node.value = .string(value) }
        mutating func encode(_ value: Double) throws { node.value = .number(try CanonicalJSON.format(value, codingPath: codingPath)) }
        mutating func encode(_ value: Float) throws { node.value = .number(try CanonicalJSON.format(value, codingPath: codingPath)) }
        mutating func encode(_ value: Int) throws { node.value = .int(Int64(value)) }
        mutating func encode(_ value: Int8) throws { node.value = .int(Int64(value)) }
        mutating func encode(_ value: Int16) throws { node.value = .int(Int64(value)) }
        mutating func encode(_ value: Int32) throws { node.value = .int(Int64(value)) }
        mutating func encode(_ value: Int64) throws { node.value = .int(value) }
        mutating func encode(_ value: UInt) throws { node.value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt8) throws { node.value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt16) throws { node.value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt32) throws { node.value = .uint(UInt64(value)) }
        mutating func encode(_ value: UInt64) throws { node.value = .uint(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try CanonicalEncoder.encode(value, into: node, codingPath: codingPath)
        }
    }
}
