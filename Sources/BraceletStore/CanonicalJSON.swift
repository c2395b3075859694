import Foundation

/// Brings JSON into one canonical byte form (sorted keys, no whitespace) so that equal content has an
/// equal content hash whatever key order or spacing the producer used.
public enum CanonicalJSON {
    /// Parses `json` and writes it back with sorted keys. Throws ``StoreError/invalidInput(_:)`` when
    /// `json` is not a JSON object or array.
    public static func canonicalize(_ json: Data, what: String) throws -> Data {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw StoreError.invalidInput("\(what) is not valid JSON (\(error.localizedDescription)). Pass the summary encoded with JSONEncoder.")
        }
        guard object is [String: Any] || object is [Any] else {
            throw StoreError.invalidInput("\(what) must be a JSON object or array, not a bare value.")
        }
        return try serialize(object)
    }

    /// Encodes `value` with sorted keys.
    public static func encode<T: Encodable>(_ value: T, what: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try canonicalize(try encoder.encode(value), what: what)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.invalidInput("\(what) could not be encoded as JSON: \(error)")
        }
    }

    static func serialize(_ object: Any) throws -> Data {
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        } catch {
            throw StoreError.invalidInput("could not write JSON: \(error.localizedDescription)")
        }
    }
}
