import BraceletProtocol
import CCrypto

/// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto: the content hash of summaries and outbox
/// entries, and the name-based UUIDs of exports.
///
/// The package links libcrypto for HMAC anyway, and its SHA-256 is the faster one by an order of
/// magnitude on outbox-sized payloads, so it is the only SHA-256 in the package (see ARCHITECTURE.md).
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let result = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { digest($0) }
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        hexString(digest(bytes))
    }

    private static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        // libcrypto wants a real pointer even for no bytes.
        let status = withUnsafeBytes(of: UInt8(0)) { placeholder in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(buffer.baseAddress ?? placeholder.baseAddress, buffer.count, out.baseAddress, &length,
                           EVP_sha256(), nil)
            }
        }
        guard status == 1, length == SHA256_DIGEST_LENGTH else { libcryptoFailed("EVP_Digest (SHA-256)") }
        return output
    }
}

/// Stops the process when a libcrypto call that can only fail for want of memory, or with a broken
/// OpenSSL installation, fails: a hash or MAC that was not computed must never be stored or sent.
package func libcryptoFailed(_ call: String) -> Never {
    let code = ERR_get_error()
    var text = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &text, text.count)
    let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    fatalError("libcrypto's \(call) failed (\(reason.isEmpty ? "no error queued" : reason)): the process is out of "
        + "memory or OpenSSL's libcrypto is broken; reinstall libssl3 and run the command again")
}
