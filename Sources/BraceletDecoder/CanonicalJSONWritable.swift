/// A value that appends its own canonical JSON bytes instead of being encoded through its `Codable`
/// conformance into a ``CanonicalJSON/Node`` tree.
///
/// For the small records that summaries hold thousands of per day (one per summary slot): building
/// a tree node per record and per field, then walking it, cost more than everything else of storing
/// a day. The encoder writes a conforming value (and an array of them) straight into bytes wherever
/// it meets one, so the types around it keep their `Codable` encoding.
///
/// A conformance must append exactly the bytes the tree writer writes for the value's `Codable`
/// encoding (keys in ``CanonicalJSON``'s order, its number formatting, `null` for a missing value):
/// content hashes depend on them. Tests compare both for every conforming type.
public protocol CanonicalJSONWritable: Encodable {
    /// Appends the value's canonical bytes to `out`. `codingPath` is where the value sits in the
    /// document, for the error about a number JSON cannot hold (NaN, infinity).
    func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws
}

extension Array: CanonicalJSONWritable where Element: CanonicalJSONWritable {
    /// Appends `[`, each element's canonical bytes separated by `,`, and `]`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        out.append(0x5B)
        for index in indices {
            if index > startIndex { out.append(0x2C) }
            try self[index].appendCanonicalJSON(to: &out, codingPath: codingPath)
        }
        out.append(0x5D)
    }
}
