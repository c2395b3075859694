import BraceletDecoder
import BraceletStore
import Foundation

extension OutboxEntry {
    /// The bytes a sink delivers: the stored payload (the envelope snapshot) with `"user"` added, the
    /// study participant of the device (`null` when none was set).
    ///
    /// The user goes into the delivery, not into the stored payload, so summaries and their content
    /// hashes stay as they are. Only the bracelet's own envelope gets the key (canonical JSON, so it
    /// begins with its first sorted key, `content_hash`): a body rendered in a standard schema (FHIR,
    /// Open mHealth) must not gain a key its schema does not have, and carries the participant in its
    /// own fields and the `X-Bracelet-User` header. Anything else (a damaged row) is sent as it is.
    public var deliveryBody: Data {
        guard payload.starts(with: Self.envelopePrefix) else { return payload }
        var body = Data(#"{"user":"#.utf8)
        body.append(userJSON)
        body.append(payload.count > 2 ? Data(",".utf8) : Data())
        body.append(payload.dropFirst())
        return body
    }

    /// How the canonical envelope the store writes begins.
    private static let envelopePrefix = Data(#"{"content_hash":"#.utf8)

    /// The user as a JSON value, escaped by the store's canonical JSON writer (the id was read from a file).
    private var userJSON: Data {
        guard let user else { return Data("null".utf8) }
        var out: [UInt8] = []
        CanonicalJSON.appendString(user, to: &out)
        return Data(out)
    }
}
