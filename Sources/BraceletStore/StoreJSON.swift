import BraceletDecoder
import Foundation

/// The canonical JSON writer (``BraceletDecoder/CanonicalJSON``) as the store calls it: a value or
/// JSON the writer refuses is reported as ``StoreError/invalidInput(_:)`` with the writer's message,
/// because every store method promises `StoreError` to its callers.
enum StoreJSON {
    /// The canonical bytes of `value` (see ``BraceletDecoder/CanonicalJSON/bytes(of:what:)``).
    static func bytes<T: Encodable>(of value: T, what: String) throws -> [UInt8] {
        do { return try CanonicalJSON.bytes(of: value, what: what) } catch let error as CanonicalJSONError {
            throw StoreError.invalidInput(error.description)
        }
    }

    /// `json` in canonical form (see ``BraceletDecoder/CanonicalJSON/canonicalize(_:what:)``).
    static func canonicalize(_ json: Data, what: String) throws -> Data {
        do { return try CanonicalJSON.canonicalize(json, what: what) } catch let error as CanonicalJSONError {
            throw StoreError.invalidInput(error.description)
        }
    }
}
