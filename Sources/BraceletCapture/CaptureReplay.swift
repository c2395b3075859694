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
}

/// A decoded beats file from a capture.
public struct ReplayedBeatsFile: Sendable {
    /// The file's header.
    public var header: FileHeader
    /// The beats, in time order.
    public var beats: [Beat]
    /// Faults in the file itself.
    public var faults: [FileFormatError]
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

    /// Reads a capture held in memory. `progress` is called with bytes read so far (about every MiB).
    public static func load(bytes: [UInt8], progress: ((Int) -> Void)? = nil) throws(BtsnoopError) -> ReplayedCapture {
        let reader = try ATTCaptureReader(bytes: bytes)
        var events = reader.makeIterator()
        var recovery = TransferRecovery()
        var nextReport = 1 << 20
        while let event = events.next() {
            recovery.consume(event)
            if let progress, events.statistics.bytesRead >= nextReport {
                progress(events.statistics.bytesRead)
                nextReport += 1 << 20
            }
        }
        recovery.finish()
        var result = ReplayedCapture()
        result.statistics = events.statistics
        result.captureFaults = events.faults
        result.transferFaults = recovery.faults
        result.heartRates = recovery.heartRates
        result.handles = recovery.handles
        // A sealed file is identified by its header and its CRC-32 trailer; hashing those is enough
        // to spot a file transferred twice.
        var seen = Set<[UInt8]>()
        let columns = MetricsColumns(capacity: 1024)
        for file in recovery.files where file.kind == .metrics || file.kind == .beats {
            let identity = [file.kind.rawValue] + file.bytes.prefix(FileHeader.length) + file.bytes.suffix(FileHeader.trailerLength)
            if file.isComplete, !seen.insert(identity).inserted { result.duplicateFiles += 1; continue }
            do {
                try file.bytes.withUnsafeBytes { raw in
                    if file.kind == .metrics {
                        var slots: [Slot] = []
                        var flags: [SlotFields] = []
                        let summary = try FileDecoder.decodeMetrics(raw, columns: columns) { c in
                            slots.reserveCapacity(slots.count + c.count)
                            for i in 0..<c.count {
                                slots.append(c.slot(at: i))
                                flags.append(c.outOfRange(at: i))
                            }
                        }
                        result.metricsFiles.append(ReplayedMetricsFile(header: summary.header, slots: slots, outOfRange: flags, faults: summary.faults))
                    } else {
                        let (beats, summary) = try FileDecoder.decodeBeats(raw)
                        result.beatsFiles.append(ReplayedBeatsFile(header: summary.header, beats: beats, faults: summary.faults))
                    }
                }
            } catch {
                result.undecodableFiles.append("\(file.kind) file of \(file.bytes.count) bytes: \(error)")
            }
        }
        return result
    }
}
