import ArgumentParser
import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import BraceletStore
import BraceletSummaries
import Foundation

/// Samples loaded from one of the inputs the summary commands accept: a capture, a CSV file or the
/// database.
struct SampleInput {
    var slots: [Slot] = []
    var beats: [Beat] = []
    /// Time-zone offset the capture's files were recorded with (seconds), when known.
    var recordedOffsetSeconds: Int?
    /// Human-readable description of where the samples came from.
    var source: String
    /// Notes for standard error (input diagnostics).
    var notes: [String] = []
    /// Beat-to-beat intervals the input held that could not be read (CSV cells).
    var unreadableIntervals = 0

    /// Replays a capture and keeps every slot and beat (every device in it), decoded straight into
    /// one array each as the capture is read.
    static func capture(_ path: String) throws -> SampleInput {
        var input = SampleInput(source: path)
        var slots: [Slot] = [], beats: [Beat] = []
        let replayed = try streamCapture(path, beatsLast: false, metrics: { _, _, batch in
            batch.forEachSlot { slot, _ in slots.append(slot) }
        }, beats: { _, _, batch in beats.append(contentsOf: batch) }).capture
        guard !replayed.metricsFiles.isEmpty || !replayed.beatsFiles.isEmpty else {
            throw CLIError("\(path) holds no bracelet file transfer (\(replayed.statistics.attPDUs) ATT PDUs); nothing to summarise", exitCode: 2)
        }
        input.slots = slots
        input.beats = beats
        input.recordedOffsetSeconds = replayed.metricsFiles.last.map { $0.header.timeZoneOffsetMinutes * 60 }
        if replayed.isIncomplete { input.notes.append("warning: \(path) is damaged or incomplete; summarising what was recovered (see bracelet replay \(path))") }
        return input
    }

    /// Reads a CSV export (first column Unix ms; other columns named like the replay keys).
    static func csv(_ path: String, intervalSeconds: Int?) throws -> SampleInput {
        let parsed = try csvRows(path, intervalSeconds: intervalSeconds)
        var input = SampleInput(source: path)
        input.slots = parsed.slots
        input.beats = parsed.beats
        input.unreadableIntervals = parsed.unreadableIntervals
        input.notes = csvNotes(parsed, path: path)
        return input
    }

    /// The rows of a CSV export as the reader gives them (with the device its `device` column
    /// names): what `summarize --csv` summarises and `ingest FILE.csv` stores.
    static func csvRows(_ path: String, intervalSeconds: Int?) throws -> CSVSampleInput {
        let bytes: [UInt8]
        do { bytes = try InputFile.read(path: path, what: "CSV file", limit: InputFile.exportLimit) } catch { throw CLIError("\(error)") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError("\(path) is not UTF-8 text: save the export as UTF-8 CSV")
        }
        do { return try CSVSampleReader.read(text, intervalSeconds: intervalSeconds) } catch { throw CLIError("\(path): \(error)") }
    }

    /// The reader's notes on a CSV file's rows and cells, for standard error.
    static func csvNotes(_ parsed: CSVSampleInput, path: String) -> [String] {
        parsed.diagnostics.map { "note: \(path): \($0)" }
    }

    /// Whether the file at `path` is a CSV history rather than a capture: named `.csv`, or text
    /// whose first line has a comma (a capture starts with the btsnoop magic, which is not text).
    static func isCSV(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".csv") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        let line = head.prefix { $0 != UInt8(ascii: "\n") }
        return !line.isEmpty && line.contains(UInt8(ascii: ",")) && line.allSatisfy { $0 == 9 || $0 == 13 || (32..<127).contains($0) }
    }

    /// Reads every slot and beat of one device from the database (the only one, unless `device` is given).
    static func database(_ path: String, device: String?) throws -> (SampleInput, String) {
        let store = try openStore(path, mustExist: true)
        let serial = try chooseDevice(store, path: path, requested: device)
        do { try store.requireIntactMeasurements(device: serial) } catch { throw CLIError("\(error)") }
        var input = SampleInput(source: "\(path) (\(serial))")
        input.slots = try store.slots(device: serial, from: Int64.min / 2, to: Int64.max / 2)
        input.beats = try store.beats(device: serial, fromMs: Int64.min / 2, toMs: Int64.max / 2)
        return (input, serial)
    }
}

/// Reads and replays a capture file, with messages that say what was wrong; `progress` is called
/// with bytes read (about every MiB) for large files. Returns the file size too.
func loadCapture(_ path: String, progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> (capture: ReplayedCapture, bytes: Int) {
    let reader = try openCapture(path)
    return (ReplayedCapture.load(reader: reader, progress: progress.map { report in { report($0, reader.btsnoop.fileSize) } }),
            reader.btsnoop.fileSize)
}

/// Reads a capture file as it streams its records (see ``ReplayedCapture/stream(reader:beatsLast:progress:metrics:beats:)``),
/// with the same messages as ``loadCapture(_:progress:)``. Returns the file size too.
func streamCapture(_ path: String, beatsLast: Bool, progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
                   metrics: (Int, FileHeader, MetricsColumns) -> Void,
                   beats: (Int, FileHeader, [Beat]) -> Void) throws -> (capture: ReplayedCapture, bytes: Int) {
    let reader = try openCapture(path)
    let size = reader.btsnoop.fileSize
    return (ReplayedCapture.stream(reader: reader, beatsLast: beatsLast, progress: progress.map { report in { report($0, size) } },
                                   metrics: metrics, beats: beats), size)
}

/// Opens the capture file at `path` for streaming, turning failures into messages.
private func openCapture(_ path: String) throws -> ATTCaptureReader {
    do {
        return try ATTCaptureReader(contentsOfFile: path)
    } catch .unusableFile(let error) {
        throw CLIError("\(error)")
    } catch {
        throw CLIError("\(path) is not a readable capture: \(error)")
    }
}

/// How a database at `path` gets what a command finds missing, for every "nothing here yet"
/// message: the gateway's bracelets come from `gateway enroll`, a device's days from a capture,
/// a sync by hand or the gateway.
enum DatabaseFiller {
    /// Bracelet data: a device and its days.
    case deviceData
    /// The gateway's enrolled bracelets.
    case enrolments

    /// The commands that fill `path`, as a clause (`store ... with ...`).
    func advice(_ path: String) -> String {
        switch self {
        case .deviceData:
            "store a capture with `bracelet ingest CAPTURE --db \(path)`, sync a bracelet once with "
                + "`bracelet listen --device ADDRESS --db \(path)`, or enrol it for the gateway with "
                + "`bracelet gateway enroll --db \(path) --device ADDRESS ...` and run `bracelet gateway run --db \(path)`"
        case .enrolments:
            "enrol a bracelet with `bracelet gateway enroll --db \(path) --device ADDRESS --user ID --tz ZONE` "
                + "(`bracelet scan` shows the address; a simulated one: --via unix:PATH)"
        }
    }
}

/// Opens the database, with a message that says what to do when it cannot be opened. `mustExist`:
/// the command only reads, so the file is opened read-only and never given a schema; when there is
/// no file, the message says how `filler` makes one.
func openStore(_ path: String, mustExist: Bool, filler: DatabaseFiller = .deviceData) throws -> Store {
    if mustExist, try !databaseExists(path) {
        throw CLIError("no database at \(path): \(filler.advice(path))")
    }
    do {
        let store = try Store(path: path, readOnly: mustExist)
        // A command that writes must not append to a damaged file.
        if !mustExist, let outside = try store.requireIntactForDelivery() { logOutsideWrites(outside, path: path) }
        Log.debug("database \(path) open \(mustExist ? "read-only" : "for writing, its structure checked")")
        return store
    } catch let error as StoreError {
        // Its message names the database already.
        if case .permissionDenied = error { throw CLIError(error.description, cause: error) }
        throw CLIError("cannot open \(path): \(error)", cause: error)
    } catch { throw CLIError("cannot open \(path): \(error)", cause: error) }
}

/// Whether a database file is at `path`: false only when nothing is there. A path this user may
/// not reach (the gateway's folder is its service user's) is refused with that advice: to
/// `FileManager.fileExists` it does not exist, and the command would offer to make a new database.
func databaseExists(_ path: String) throws -> Bool {
    do { return try InputFile.checkRegularOrMissing(path: path, what: "database") } catch {
        if case .permissionDenied = error { throw CLIError(StoreError.permissionDenied(path: path).description) }
        throw CLIError(error.description)
    }
}

/// Says what another program did to the database file and what bracelet did about it: a warning
/// when another program wrote to it, else information (a copy of bracelet's own log).
func logOutsideWrites(_ report: OutsideWriteReport, path: String) {
    if report.written { Log.warning("\(path): \(report)") } else { Log.info("\(path): \(report)") }
}

/// The device to work on: `requested`, or the only one in the database.
func chooseDevice(_ store: Store, path: String, requested: String?) throws -> String {
    let devices = try store.devices().map(\.serial)
    Log.debug("devices in \(path): \(devices.isEmpty ? "none" : devices.joined(separator: ", "))")
    if let requested {
        guard devices.contains(requested) else {
            throw CLIError("device \(requested) is not in \(path); it holds: \(devices.joined(separator: ", "))")
        }
        return requested
    }
    guard let only = devices.first else { throw CLIError("\(path) holds no device yet: \(DatabaseFiller.deviceData.advice(path))") }
    guard devices.count == 1 else {
        throw CLIError("\(path) holds several devices (\(devices.joined(separator: ", "))); choose one with --device")
    }
    return only
}

/// Writes one of ``SampleInput``'s notes: as a warning when it is one, else as information.
func logNote(_ note: String) {
    if note.hasPrefix("warning:") { Log.warning(note) } else { Log.info(note) }
}
