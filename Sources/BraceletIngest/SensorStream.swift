import BraceletDecoder
import BraceletProtocol
import BraceletStore
import BraceletTransport
import Foundation

/// Keeps a standard sensor's stream while its session runs: the measurements become rows
/// (``SensorRows``) that go through the one ingest pipeline every ``Settings/flushSeconds`` (rows
/// and their touched days recorded as pending, durable, as a transferred file's), and the pending
/// days of the sensor are recomputed every ``Settings/recomputeSeconds`` and as soon as a value of
/// a new local day arrives (the previous day's last version), so its summaries and their outbox
/// entries follow the stream. Times are the session's (the values' arrival).
///
/// Not thread-safe: it is fed from the session's thread (``LiveSync``).
public final class SensorStream {
    /// How often a stream is written and summarised.
    public struct Settings: Sendable {
        /// Rows are stored once the oldest one not stored is this old (seconds).
        public var flushSeconds: Int64 = 5
        /// Today's summaries are recomputed this often (seconds) while values arrive.
        public var recomputeSeconds: Int64 = 300

        /// The defaults.
        public init() {}
    }

    /// What a stream stored so far, after each write.
    public struct Progress: Sendable {
        /// The device the rows are kept under (its serial, or its address).
        public var device: String
        /// What the sensor says about itself.
        public var sensor: StandardSensorInfo
        /// Seconds with a value (slots) stored by this write.
        public var samplesStored: Int
        /// Seconds with a value stored by the stream so far.
        public var totalStored: Int
        /// Arrival of the latest value, Unix milliseconds.
        public var lastSampleMs: Int64?
        /// The latest battery level, percent.
        public var battery: Int?
        /// Values dropped so far (no free second near their arrival).
        public var dropped: Int
    }

    /// The device the rows are kept under.
    public let device: String
    /// What the sensor said about itself.
    public let sensor: StandardSensorInfo
    private let pipeline: IngestPipeline
    private let settings: Settings
    private let timeZone: TimeZone
    private let onProgress: (Progress) -> Void
    private var rows: SensorRows
    private var oldestPendingMs: Int64?
    private var lastRecomputeMs: Int64?
    private var lastRecomputeDay: Int?
    private var totalStored = 0
    /// The latest failure to store or recompute (retried at the next write); `nil` once one succeeds.
    public private(set) var failure: String?

    /// A stream of `sensor`, kept as `device`, through `pipeline`: its participant record is made
    /// (or completed) now, and its zone places the device's time stamps and its days.
    public init(pipeline: IngestPipeline, device: String, sensor: StandardSensorInfo, settings: Settings = Settings(),
                onProgress: @escaping (Progress) -> Void = { _ in }) throws {
        self.pipeline = pipeline
        self.device = device
        self.sensor = sensor
        self.settings = settings
        self.onProgress = onProgress
        let record = try pipeline.participantRecord(device: device)
        timeZone = (try? record.current().timeZone) ?? pipeline.defaultTimeZone ?? .current
        rows = SensorRows(profiles: sensor.profiles, timeZone: timeZone, battery: sensor.batteryPercent)
        try pipeline.store.recordSensor(device: device, name: sensor.modelName ?? sensor.profiles.map(\.rawValue).joined(separator: "+"))
    }

    /// Adds one value; writes the rows and recomputes the days when due.
    public func add(_ sample: SensorSample) {
        let before = rows.slots.count + rows.beats.count
        rows.add(sample)
        let now = sample.receivedAtMilliseconds
        if rows.slots.count + rows.beats.count > before, oldestPendingMs == nil { oldestPendingMs = now }
        if case .battery = sample.measurement, oldestPendingMs == nil { report(stored: 0) }
        let day = ZonedTime.dayNumber(ofUnix: now.floorDivided(by: 1_000).quotient, in: timeZone)
        let newDay = lastRecomputeDay.map { day > $0 } ?? false
        if let oldest = oldestPendingMs, now - oldest >= settings.flushSeconds * 1_000 || newDay { flush() }
        if lastRecomputeMs == nil { (lastRecomputeMs, lastRecomputeDay) = (now, day) }
        if let last = lastRecomputeMs, now - last >= settings.recomputeSeconds * 1_000 || newDay {
            flush()
            recompute()
            (lastRecomputeMs, lastRecomputeDay) = (now, day)
        }
    }

    /// Writes what is left (the session ended); the caller recomputes the pending days.
    public func finish() { flush() }

    private func flush() {
        let taken = rows.take()
        guard !taken.slots.isEmpty || !taken.beats.isEmpty else { oldestPendingMs = nil; return }
        do {
            let report = try pipeline.storeDeferringSummaries([VerifiedFile(serial: device, model: nil, slots: taken.slots, beats: taken.beats)])
            totalStored += report.slotsInserted
            oldestPendingMs = nil
            failure = nil
            self.report(stored: report.slotsInserted)
        } catch {
            // Kept for the next write; the session goes on (a full disk must not cost the link).
            rows.restore(taken)
            failure = "cannot store the values of \(device): \(error)"
        }
    }

    private func recompute() {
        do {
            _ = try pipeline.recomputePending(device: device)
        } catch {
            failure = "cannot recompute the days of \(device) (they stay pending): \(error)"
        }
    }

    private func report(stored: Int) {
        onProgress(Progress(device: device, sensor: sensor, samplesStored: stored, totalStored: totalStored,
                            lastSampleMs: rows.lastSampleMs, battery: rows.battery, dropped: rows.dropped))
    }
}
