/// A value already written in canonical JSON (``BraceletDecoder/CanonicalJSON``), with its content
/// hash: what the store keeps and forwards for a summary.
///
/// Making one is CPU work that needs no database (a day's summary is about 0.6 MB of JSON), so a
/// caller that stores many makes them on other threads and hands them to the store's one.
public struct CanonicalDocument: Sendable {
    /// The canonical bytes.
    public let bytes: [UInt8]
    /// SHA-256 hex of ``bytes``: what receivers deduplicate on.
    public let contentHash: String

    /// `value` in canonical JSON. Throws ``StoreError/invalidInput(_:)`` naming `what` when the
    /// value holds a number JSON cannot (NaN, infinity).
    public init<T: Encodable>(_ value: T, what: String) throws {
        self.init(canonical: try StoreJSON.bytes(of: value, what: what))
    }

    /// Bytes already canonical.
    init(canonical: [UInt8]) {
        bytes = canonical
        contentHash = SHA256.hex(canonical)
    }
}
