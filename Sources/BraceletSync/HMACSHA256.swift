import BraceletProtocol
import BraceletStore
import CCrypto

/// HMAC-SHA256 (RFC 2104) through OpenSSL's libcrypto, for the webhook signature.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // OpenSSL treats a NULL key specially; always pass a real pointer, even for an empty key.
        let keyStorage = key.isEmpty ? [UInt8(0)] : key
        let messageStorage = message.isEmpty ? [UInt8(0)] : message
        let result = keyStorage.withUnsafeBufferPointer { keyBuffer in
            messageStorage.withUnsafeBufferPointer { messageBuffer in
                output.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                         messageBuffer.baseAddress, message.count, out.baseAddress, &length)
                }
            }
        }
        guard result != nil, length == SHA256_DIGEST_LENGTH else { libcryptoFailed("HMAC (SHA-256)") }
        return Array(output.prefix(Int(length)))
    }

    /// The MAC as lowercase hex.
    public static func hex(key: [UInt8], message: [UInt8]) -> String {
        hexString(mac(key: key, message: message))
    }

    /// The `X-Bracelet-Signature` header value for `body`: `sha256=<hex>`.
    public static func signatureHeader(body: [UInt8], secret: [UInt8]) -> String {
        "sha256=" + hex(key: secret, message: body)
    }
}
