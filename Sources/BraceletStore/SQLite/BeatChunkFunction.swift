import CSQLite

/// `bracelet_beat_chunk(time_ms, rr_ms)`: an aggregate that packs the beats of one device and hour
/// into a chunk of the first layout (8 bytes a beat, see ``BeatChunk/legacyRecordSize``). The
/// migration to packed beats converts the old rows with it, and a later one narrows the chunks with
/// `bracelet_narrow_beats(beats)` (NULL: not whole records, or an interval beyond 24 bits); every
/// connection registers both, as the schema check builds the schema in memory from the migrations.
/// A beat outside the first beat's hour or an interval beyond 32 bits is an error that names it,
/// never a silently changed value.
enum BeatChunkFunction {
    /// The SQL function's name.
    static let functionName = "bracelet_beat_chunk"
    /// The name of the function that narrows a chunk of the first layout.
    static let narrowFunctionName = "bracelet_narrow_beats"

    /// Registers the aggregate on a connection. It fails only without memory, and then the first
    /// statement of the connection fails too.
    @discardableResult
    static func register(on handle: OpaquePointer) -> Int32 {
        let packed = sqlite3_create_function_v2(handle, functionName, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                                nil, beatChunkStep, beatChunkFinal, nil)
        let narrowed = sqlite3_create_function_v2(handle, narrowFunctionName, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                                  narrowBeats, nil, nil, nil)
        return packed != SQLITE_OK ? packed : narrowed
    }

    /// The chunk of `beats` (time, RR) as stored bytes, or what is wrong with them.
    static func pack(_ beats: [(timeMs: Int64, rrMs: Int64?)]) -> Result<[UInt8], StoreError> {
        let sorted = beats.sorted { $0.timeMs < $1.timeMs }
        guard let first = sorted.first else { return .success([]) }
        let start = BeatChunk.start(ofMs: first.timeMs)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sorted.count * BeatChunk.legacyRecordSize)
        var previous = Int64.min
        for beat in sorted {
            guard beat.timeMs - start < BeatChunk.spanMs, beat.timeMs != previous else {
                return .failure(.invalidInput("the beat at \(beat.timeMs) ms cannot join the hour starting at \(start) ms"))
            }
            previous = beat.timeMs
            guard let rr = beat.rrMs else {
                BeatChunk.appendLegacy(offset: beat.timeMs - start, interval: BeatChunk.noInterval, to: &bytes)
                continue
            }
            guard let interval = Int32(exactly: rr), interval != Int32.min else {
                return .failure(.invalidInput("the beat at \(beat.timeMs) ms has an RR interval of \(rr) ms, which no heart produces; check the input."))
            }
            BeatChunk.appendLegacy(offset: beat.timeMs - start, interval: interval, to: &bytes)
        }
        return .success(bytes)
    }
}

/// The beats of one group, collected by the step function.
private final class BeatChunkBuilder {
    var beats: [(timeMs: Int64, rrMs: Int64?)] = []
}

/// The group's builder, kept in SQLite's aggregate context as a retained pointer.
private func builderSlot(_ context: OpaquePointer?, create: Bool) -> UnsafeMutablePointer<UnsafeMutableRawPointer?>? {
    let size = create ? Int32(MemoryLayout<UnsafeMutableRawPointer?>.size) : 0
    return sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
}

private let beatChunkStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    guard let slot = builderSlot(context, create: true) else {
        sqlite3_result_error_nomem(context)
        return
    }
    if slot.pointee == nil { slot.pointee = Unmanaged.passRetained(BeatChunkBuilder()).toOpaque() }
    guard let raw = slot.pointee else { return }
    let builder = Unmanaged<BeatChunkBuilder>.fromOpaque(raw).takeUnretainedValue()
    let time = values?[0], rr = values?[1]
    builder.beats.append((sqlite3_value_int64(time), sqlite3_value_type(rr) == SQLITE_NULL ? nil : sqlite3_value_int64(rr)))
}

private let beatChunkFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    guard let slot = builderSlot(context, create: false), let raw = slot.pointee else {
        sqlite3_result_null(context)
        return
    }
    slot.pointee = nil
    let builder = Unmanaged<BeatChunkBuilder>.fromOpaque(raw).takeRetainedValue()
    switch BeatChunkFunction.pack(builder.beats) {
    case .success(let bytes):
        bytes.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), csqlite_transient()) }
    case .failure(let error):
        sqlite3_result_error(context, "\(error)", -1)
    }
}

private let narrowBeats: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, values in
    let value = values?[0]
    guard sqlite3_value_type(value) == SQLITE_BLOB else {
        sqlite3_result_null(context)
        return
    }
    let count = Int(sqlite3_value_bytes(value))
    let narrowed: [UInt8]?
    if let base = sqlite3_value_blob(value) {
        narrowed = BeatChunk.narrowed(UnsafeRawBufferPointer(start: base, count: count))
    } else {
        narrowed = count == 0 ? [] : nil
    }
    guard let narrowed else {
        sqlite3_result_null(context)
        return
    }
    narrowed.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), csqlite_transient()) }
}
