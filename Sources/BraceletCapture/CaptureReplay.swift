import BraceletDecoder
import BraceletProtocol
import BraceletTransport

/// A decoded metrics file from a capture.
public struct ReplayedMetricsFile: Sendable {
    /// The file's header (model, serial, base time, interval, time-zone offset).
    public var header: FileHeader
    /// One slot per record, in time order.
    public var slots: [Slot]
    /// Out-of-range flags per slot (same indices as `slots`).
    public var outOfRange: [SlotFields]
    /// Faults in the file itself (truncation, CRC mismatch).
    public var faults: [FileFormatError]
    /// Records decoded (also when they were streamed and `slots` is empty).
    public var records: Int
}

/// A decoded beats file from a capture.
public struct ReplayedBeatsFile: Sendable {
    /// The file's header.
    public var header: FileHeader
    /// The beats, in time order.
    public var beats: [Beat]
    /// Faults in the file itself.
    public var faults: [FileFormatError]
    /// Beats decoded (also when they were streamed and `beats` is empty).
    public var records: Int
}

/// Everything a capture holds of bracelet data: decoded files, heart-rate notifications, and what
/// was wrong along the way.
public struct ReplayedCapture: Sendable {
    /// Metrics files, in transfer order.
    public var metricsFiles: [ReplayedMetricsFile] = []
    /// Beats files, in transfer order.
    public var beatsFiles: [ReplayedBeatsFile] = []
    /// Standard Heart Rate Measurement notifications.
    public var heartRates: [CapturedHeartRate] = []
    /// Counts from reading the capture.
    public var statistics = CaptureStatistics()
    /// Damage in the capture's HCI/L2CAP layer.
    public var captureFaults: [CaptureFault] = []
    /// Protocol faults in the bracelet exchange (most were recovered by re-requests).
    public var transferFaults: [TransferFault] = []
    /// Files transferred more than once with identical content (counted once).
    public var duplicateFiles = 0
    /// Files that could not be decoded at all, with why.
    public var undecodableFiles: [String] = []
    /// The attribute handles carrying bracelet data.
    public var handles = BraceletHandles()

    /// Whether the capture held any bracelet data or heart-rate notifications.
    public var hasData: Bool { !metricsFiles.isEmpty || !beatsFiles.isEmpty || !heartRates.isEmpty }

    /// Whether some data is known to be missing: a damaged capture, an incomplete transfer, or a
    /// file that is truncated or failed its CRC.
    public var isIncomplete: Bool {
        !captureFaults.isEmpty || !undecodableFiles.isEmpty
            || transferFaults.contains { if case .transferIncomplete = $0 { true } else { false } }
            || metricsFiles.contains { !$0.faults.isEmpty } || beatsFiles.contains { !$0.faults.isEmpty }
    }

    /// Reads a capture held in memory and keeps every decoded slot and beat. `progress` is called
    /// with bytes read so far (about every MiB).
    public static func load(bytes: [UInt8], progress: ((Int) -> Void)? = nil) throws(BtsnoopError) -> ReplayedCapture {
        load(reader: try ATTCaptureReader(bytes: bytes), progress: progress)
    }

    /// Reads a capture and keeps every decoded slot and beat. `progress` is called with bytes read
    /// so far (about every MiB).
    public static func load(reader: ATTCaptureReader, progress: ((Int) -> Void)? = nil) -> ReplayedCapture {
        var slots: [[Slot]] = [], flags: [[SlotFields]] = [], beats: [[Beat]] = []
        var result = stream(reader: reader, progress: progress, metrics: { index, _, c in
            while slots.count <= index { slots.append([]); flags.append([]) }
            c.forEachSlot { slot, outOfRange in
                slots[index].append(slot)
                flags[index].append(outOfRange)
            }
        }, beats: { index, _, batch in
            while beats.count <= index { beats.append([]) }
            beats[index].append(contentsOf: batch)
        })
        for i in slots.indices {
            result.metricsFiles[i].slots = slots[i]
            result.metricsFiles[i].outOfRange = flags[i]
        }
        for i in beats.indices { result.beatsFiles[i].beats = beats[i] }
        return result
    }

    /// Reads a capture and hands over the records of each metrics and beats file as the file's
    /// transfer ends, without keeping them: memory holds the file in transfer (and, from a reader
    /// that streams its file, a window of the capture), not every decoded record.
    ///
    /// - Parameters:
    ///   - beatsLast: hold the beats files (as received, 8 bytes a beat) until the capture is read,
    ///     so that every metrics record comes before every beat (the order `bracelet replay` prints).
    ///   - metrics: called with each batch of a metrics file: the file's index in the result's
    ///     ``metricsFiles``, its header, and the batch (valid only during the call).
    ///   - beats: called with each batch of a beats file's beats, likewise.
    /// - Returns: everything but the records: files (header, record count, faults; `slots` and
    ///   `beats` stay empty), heart rates, statistics and faults.
    public static func stream(reader: ATTCaptureReader, beatsLast: Bool = false, progress: ((Int) -> Void)? = nil,
                              metrics: (_ index: Int, _ header: FileHeader, _ batch: MetricsColumns) -> Void,
                              beats: (_ index: Int, _ header: FileHeader, _ batch: [Beat]) -> Void) -> ReplayedCapture {
        var events = reader.makeIterator()
        var recovery = TransferRecovery()
        var files = FileStreamer(beatsLast: beatsLast)
        var nextReport = 1 << 20
        while let event = events.next() {
            recovery.consume(event)
            if !recovery.files.isEmpty {
                for file in recovery.takeFiles() { files.take(file, metrics: metrics, beats: beats) }
            }
            if let progress, events.statistics.bytesRead >= nextReport {
                progress(events.statistics.bytesRead)
                nextReport += 1 << 20
            }
        }
        recovery.finish()
        for file in recovery.takeFiles() { files.take(file, metrics: metrics, beats: beats) }
        files.finish(beats: beats)
        var result = files.result
        result.statistics = events.statistics
        result.captureFaults = events.faults
        result.transferFaults = recovery.faults
        result.heartRates = recovery.heartRates
        result.handles = recovery.handles
        return result
    }
}

/// Decodes recovered files one by one as they are taken from the recovery, in the order the
/// transfers ended, and drops each file's bytes once it is decoded.
private struct FileStreamer {
    let beatsLast: Bool
    var result = ReplayedCapture()
    /// A sealed file is identified by its header and its CRC-32 trailer; those are enough to spot a
    /// file transferred twice.
    var seen = Set<[UInt8]>()
    /// The batch metrics files are decoded into, made at the first metrics file: a capture without
    /// one (most of those a fuzzer or a heart-rate-only session makes) never pays for its columns.
    private var reusableColumns: MetricsColumns?
    /// Beats files checked but not yet decoded (with `beatsLast`): index, bytes, inspection.
    var heldBeats: [(index: Int, bytes: [UInt8], sealed: SealedFile)] = []

    init(beatsLast: Bool) { self.beatsLast = beatsLast }

    mutating func take(_ file: RecoveredFile, metrics: (Int, FileHeader, MetricsColumns) -> Void,
                       beats: (Int, FileHeader, [Beat]) -> Void) {
        guard file.kind == .metrics || file.kind == .beats else { return }
        let identity = [file.kind.rawValue] + file.bytes.prefix(FileHeader.length) + file.bytes.suffix(FileHeader.trailerLength)
        if file.isComplete, !seen.insert(identity).inserted { result.duplicateFiles += 1; return }
        do {
            try file.bytes.withUnsafeBytes { raw in
                if file.kind == .metrics {
                    let index = result.metricsFiles.count
                    let columns = reusableColumns ?? MetricsColumns(capacity: 1024)
                    reusableColumns = columns
                    let summary = try FileDecoder.decodeMetricsBatches(raw, columns: columns) { header, c in metrics(index, header, c) }
                    result.metricsFiles.append(ReplayedMetricsFile(header: summary.header, slots: [], outOfRange: [],
                                                                   faults: summary.faults, records: summary.records))
                } else {
                    let sealed = try FileDecoder.inspectBeats(raw)
                    let index = result.beatsFiles.count
                    result.beatsFiles.append(ReplayedBeatsFile(header: sealed.header, beats: [], faults: sealed.faults,
                                                               records: sealed.completeRecords))
                    if beatsLast {
                        heldBeats.append((index, file.bytes, sealed))
                    } else {
                        FileDecoder.decodeBeats(raw, inspected: sealed) { beats(index, sealed.header, $0) }
                    }
                }
            }
        } catch {
            result.undecodableFiles.append("\(file.kind) file of \(file.bytes.count) bytes: \(error)")
        }
    }

    /// Decodes the held beats files.
    mutating func finish(beats: (Int, FileHeader, [Beat]) -> Void) {
        for held in heldBeats {
            held.bytes.withUnsafeBytes { raw in
                FileDecoder.decodeBeats(raw, inspected: held.sealed) { beats(held.index, held.sealed.header, $0) }
            }
        }
        heldBeats = []
    }
}
