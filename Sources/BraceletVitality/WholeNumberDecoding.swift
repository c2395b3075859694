extension KeyedDecodingContainer {
    /// Decodes an optional whole number, reporting a fraction (for example 55.5 in an `_int` field)
    /// as a data error at this key. Foundation's own `Int` decoding reports that case as "not valid
    /// JSON" without a location, which would leave the user searching the file.
    func decodeWholeNumberIfPresent(forKey key: Key) throws -> Int? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.isFinite, value == value.rounded(), abs(value) < 9.0e15 else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected a whole number, found \(formatNumber(value, decimals: 6))")
        }
        return Int(value)
    }
}
