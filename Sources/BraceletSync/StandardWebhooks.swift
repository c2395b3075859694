import Foundation

/// The signature of the Standard Webhooks specification (standardwebhooks.com), which receivers
/// check with its verifier libraries (`standardwebhooks` on PyPI, and others in many languages)
/// instead of writing their own.
///
/// Each request carries `webhook-id` (the outbox entry key, also the idempotency key),
/// `webhook-timestamp` (Unix seconds when it was sent) and `webhook-signature: v1,<base64 of the
/// HMAC-SHA256 of "id.timestamp.body">`. The body signed is the JSON itself, before any
/// `Content-Encoding`: what a receiver's framework hands its handler. Because the timestamp is
/// signed, a verifier refuses a request older (or newer) than its tolerance (five minutes in the
/// specification's libraries), so a captured request cannot be replayed later; within that window a
/// receiver dedupes by `webhook-id`.
public struct StandardWebhookKey: Sendable, Equatable {
    /// The HMAC key.
    let bytes: [UInt8]

    /// The prefix of a secret in the specification's own format: `whsec_` and the key in base64.
    public static let secretPrefix = "whsec_"

    /// The key of `secret`: a `whsec_` secret is base64-decoded as the specification says (so
    /// `whsec_` secrets made for other senders work unchanged); any other secret is used as its
    /// UTF-8 bytes (a receiver then gives the verifier those bytes, e.g. `Webhook(secret.encode())`).
    ///
    /// - Throws: ``SyncError/emptySecret`` for an empty secret, ``SyncError/invalidSecret(_:)`` for a
    ///   `whsec_` secret whose rest is not base64 of at least one byte.
    public init(secret: String) throws {
        guard !secret.isEmpty else { throw SyncError.emptySecret }
        guard secret.hasPrefix(Self.secretPrefix) else {
            bytes = Array(secret.utf8)
            return
        }
        var encoded = String(secret.dropFirst(Self.secretPrefix.count))
        // The specification's libraries accept the base64 without its padding.
        if encoded.count % 4 != 0 { encoded += String(repeating: "=", count: 4 - encoded.count % 4) }
        guard let decoded = Data(base64Encoded: encoded), !decoded.isEmpty else {
            throw SyncError.invalidSecret("it starts with whsec_ but the rest is not base64 of a key "
                + "(make one with: echo \"whsec_$(openssl rand -base64 32)\")")
        }
        bytes = Array(decoded)
    }

    /// The `webhook-signature` value for message `id` sent at `timestamp` (Unix seconds) with `body`.
    public func signature(id: String, timestamp: Int64, body: some Collection<UInt8>) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "v1," + Data(HMACSHA256.mac(key: bytes, message: message)).base64EncodedString()
    }
}
