import CSQLite

/// `bracelet_row_check(value, ...)`: a 31-bit FNV-1a hash of its arguments' types and exact bytes
/// (an integer's 8 bytes, a real's bit pattern, text and blob bytes).
///
/// The measurement tables keep it in a stored generated column (`row_check`), computed by SQLite
/// when a row is written. A damaged page that changes a value, a key or the check itself makes the
/// stored check and the recomputed one differ, so corruption SQLite's own structure checks cannot
/// see (bytes inside a row) is found before the row is summarised. 31 bits keep the column at four
/// bytes per row; a damaged row passes with probability 2^-31.
enum RowCheck {
    /// The SQL function's name.
    static let functionName = "bracelet_row_check"

    /// Registers the function on a connection; every connection that writes measurements needs it.
    /// It fails only without memory, and then the first statement of the connection fails too.
    @discardableResult
    static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(handle, functionName, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                   nil, rowCheckFunction, nil, nil, nil)
    }
}

private let rowCheckFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, values in
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ word: UInt64, bytes: Int) {
        var w = word
        for _ in 0..<bytes {
            hash = (hash ^ (w & 0xFF)) &* 0x100_0000_01B3
            w >>= 8
        }
    }
    for index in 0..<Int(count) {
        let value = values?[index]
        let type = sqlite3_value_type(value)
        mix(UInt64(UInt32(bitPattern: type)), bytes: 1)
        switch type {
        case SQLITE_INTEGER:
            mix(UInt64(bitPattern: sqlite3_value_int64(value)), bytes: 8)
        case SQLITE_FLOAT:
            mix(sqlite3_value_double(value).bitPattern, bytes: 8)
        case SQLITE_TEXT, SQLITE_BLOB:
            let length = Int(sqlite3_value_bytes(value))
            mix(UInt64(length), bytes: 4)
            if let bytes = sqlite3_value_blob(value)?.assumingMemoryBound(to: UInt8.self) {
                for i in 0..<length { mix(UInt64(bytes[i]), bytes: 1) }
            }
        default:
            break
        }
    }
    sqlite3_result_int64(context, Int64(hash >> 33))
}
