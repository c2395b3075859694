import CSQLite

/// `bracelet_beat_chunk(time_ms, rr_ms)`: an aggregate that packs the beats of one device and hour
/// into a chunk (see ``BeatChunk``). The migration to packed beats converts the old rows with it;
/// every connection registers it, as the schema check builds the schema in memory from the
/// migrations. A beat outside the first beat's hour or an interval beyond 32 bits is an error
/// that names it, never a silently changed value.
enum BeatChunkFunction {
    /// The SQL function's name.
    static let functionName = "bracelet_beat_chunk"

    /// Registers the aggregate on a connection. It fails only without memory, and then the first
    /// statement of the connection fails too.
    @discardableResult
    static func register(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(handle, functionName, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                   nil, beatChunkStep, beatChunkFinal, nil)
    }

    /// The chunk of `beats` (time, RR) as stored bytes, or what is wrong with them.
    static func pack(_ beats: [(timeMs: Int64, rrMs: Int64?)]) -> Result<[UInt8], StoreError> {
        let sorted = beats.sorted { $0.timeMs < $1.timeMs }
        guard let first = sorted.first else { return .success([]) }
        let start = BeatChunk.start(ofMs: first.timeMs)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sorted.count * BeatChunk.recordSize)
        var previous = Int64.min
        for beat in sorted {
            guard beat.timeMs - start < BeatChunk.spanMs, beat.timeMs != previous else {
                return .failure(.invalidInput("the beat at \(beat.timeMs) ms cannot join the hour starting at \(start) ms"))
            }
            previous = beat.timeMs
            let interval: Int32
            do { interval = try BeatChunk.storedInterval(beat.rrMs.map { Int($0) }, timeMs: beat.timeMs) } catch {
                return .failure(error as? StoreError ?? .invalidInput("\(error)"))
            }
            BeatChunk.append(offset: beat.timeMs - start, interval: interval, to: &bytes)
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
