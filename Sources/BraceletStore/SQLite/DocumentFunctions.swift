import BraceletDecoder
import CSQLite

/// SQL functions the migration to stored documents (see `StoredEnvelope`) moves existing rows with:
///
/// - `bracelet_compress(X)`: the bytes of X (text or blob) as one zstd frame (``Zstd``).
/// - `bracelet_sha256(X)`: the SHA-256 hex of the bytes of X, as content hashes are written.
/// - `bracelet_envelope_summary(P)`: the summary bytes of outbox payload P, NULL when P is not in the
///   outbox's envelope layout.
/// - `bracelet_envelope_reference(P)`: P with its summary replaced by `null`, NULL likewise.
/// - `bracelet_redact_urls(T)`: text T with every URL in it redacted (``URLRedaction``), for the
///   migration that redacts what the delivery log kept.
///
/// Every connection registers them, as the schema check builds the schema in memory from the
/// migrations.
enum DocumentFunctions {
    /// Registers the functions on a connection. It fails only without memory, and then the first
    /// statement that uses one fails too.
    static func register(on handle: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(handle, "bracelet_compress", 1, flags, nil, compressFunction, nil, nil, nil)
        sqlite3_create_function_v2(handle, "bracelet_sha256", 1, flags, nil, sha256Function, nil, nil, nil)
        sqlite3_create_function_v2(handle, "bracelet_envelope_summary", 1, flags, nil, envelopeSummaryFunction, nil, nil, nil)
        sqlite3_create_function_v2(handle, "bracelet_envelope_reference", 1, flags, nil, envelopeReferenceFunction, nil, nil, nil)
        sqlite3_create_function_v2(handle, "bracelet_redact_urls", 1, flags, nil, redactURLsFunction, nil, nil, nil)
    }

    /// The bytes of a text or blob argument; `nil` for NULL.
    static func bytes(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        // sqlite3_value_blob first, then its length, as SQLite documents for either type.
        let base = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        return UnsafeRawBufferPointer(start: base ?? UnsafeRawPointer(bitPattern: 1), count: base == nil ? 0 : count)
    }
}

private func resultBlob(_ context: OpaquePointer?, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), csqlite_transient()) }
}

private func resultText(_ context: OpaquePointer?, _ bytes: some Collection<UInt8>) {
    Array(bytes).withUnsafeBytes {
        sqlite3_result_text(context, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count), csqlite_transient())
    }
}

private let compressFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let bytes = DocumentFunctions.bytes(values?[0]) else { return sqlite3_result_null(context) }
    resultBlob(context, Zstd.compress(bytes))
}

private let sha256Function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let bytes = DocumentFunctions.bytes(values?[0]) else { return sqlite3_result_null(context) }
    resultText(context, Array(SHA256.hex(bytes).utf8))
}

private let envelopeSummaryFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let bytes = DocumentFunctions.bytes(values?[0]),
          let split = StoredEnvelope.split(bytes.assumingMemoryBound(to: UInt8.self)) else { return sqlite3_result_null(context) }
    resultText(context, split.summary)
}

private let envelopeReferenceFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let bytes = DocumentFunctions.bytes(values?[0]),
          let split = StoredEnvelope.split(bytes.assumingMemoryBound(to: UInt8.self)) else { return sqlite3_result_null(context) }
    resultText(context, split.stored)
}

private let redactURLsFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let bytes = DocumentFunctions.bytes(values?[0]) else { return sqlite3_result_null(context) }
    resultText(context, Array(URLRedaction.redactingURLs(in: String(decoding: bytes, as: UTF8.self)).utf8))
}
