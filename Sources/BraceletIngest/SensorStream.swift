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
/// The link's reader never waits for the disk: ``add(_:)`` turns a value into rows and hands what
/// is due to the stream's own queue, which writes and recomputes in order behind it. A reader held
/// up by a recompute would leave notifications in the socket and stamp them late, in a bunch.
///
/// A write that fails keeps its rows: they are written with the next batch (at the stream's
/// cadence, never once per value), and the failure is said once (``Problem``) until a write
/// succeeds again.
///
/// ``add(_:)`` and ``finish()`` are called from one thread (the session's, ``LiveSync``);
/// `onProgress` and `onProblem` are called from the stream's queue.
public final class SensorStream: @unchecked Sendable {
    /// How often a stream is written and summarised.
    public struct Settings: Sendable {
        /// Rows are stored once the oldest one not stored is this old (seconds).
        public var flushSeconds: Int64 = 5
        /// Today's summaries are recomputed this often (seconds) while values arrive.
        public var recomputeSeconds: Int64 = 300
        /// While writes fail, at most this many seconds with a value wait in memory (6 h: a few MB);
        /// older ones are given up, and said so, rather than growing the process until it is killed.
        public var maxWaitingSeconds = 21_600

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

    /// A problem keeping the stream, said when it starts and when it is over, never per value.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The values of `device` could not be written (`reason`); `waiting` seconds with a value are
        /// kept in memory and written with the next batch.
        case cannotStore(device: String, reason: String, waiting: Int)
        /// A write succeeded again after ``cannotStore(device:reason:waiting:)``; `seconds` with a
        /// value that had waited are stored, `givenUp` older ones were given up meanwhile.
        case storedAgain(device: String, seconds: Int, givenUp: Int)
        /// The pending days of `device` could not be recomputed (`reason`); they stay pending.
        case cannotRecompute(device: String, reason: String)
        /// Writes of `device` have failed for so long that more than `limit` seconds with a value
        /// waited; the oldest `seconds` of them were given up (said once per failure).
        case givenUp(device: String, seconds: Int, limit: Int)

        /// What happened and what follows.
        public var description: String {
            switch self {
            case let .cannotStore(device, reason, waiting):
                "cannot store the values of \(device): \(reason); \(waiting) second(s) with a value are kept in memory and "
                    + "written with the next batch (said once until a write succeeds)"
            case let .storedAgain(device, seconds, givenUp):
                "the values of \(device) are stored again; \(seconds) second(s) with a value that had waited are kept"
                    + (givenUp > 0 ? ", \(givenUp) older one(s) were given up" : "")
            case let .cannotRecompute(device, reason):
                "cannot recompute the days of \(device) (they stay pending): \(reason)"
            case let .givenUp(device, seconds, limit):
                "the values of \(device) could not be stored for more than \(limit) s with a value: the oldest \(seconds) "
                    + "second(s) are given up; free the database (disk space, lock) to keep the rest"
            }
        }
    }

    /// The device the rows are kept under.
    public let device: String
    /// What the sensor said about itself.
    public let sensor: StandardSensorInfo
    private let pipeline: IngestPipeline
    private let settings: Settings
    private let timeZone: TimeZone
    private let onProgress: @Sendable (Progress) -> Void
    private let onProblem: @Sendable (Problem) -> Void
    private let record: (@Sendable (Progress) throws -> Void)?
    // The reader's (the session's thread).
    private var rows: SensorRows
    private var oldestPendingMs: Int64?
    private var lastRecomputeMs: Int64?
    private var lastRecomputeDay: Int?
    // The writer's (only touched on `writer`).
    private let writer = SerialWorkQueue(label: "bracelet.sensor-stream")
    private var unsaved: [(slots: [Slot], beats: [Beat])] = []
    private var storeFailure: String?
    private var givenUp = 0
    private var recomputeFailure: String?
    private var totalStored = 0

    /// A stream of `sensor`, kept as `device`, through `pipeline`: its participant record is made
    /// (or completed) now, and its zone places the device's time stamps and its days. `record`
    /// writes what the caller keeps of each write (the gateway's enrolment row) inside the
    /// transaction that stores the rows: one fsync per write, and a killed process never holds
    /// rows its record does not count, nor the reverse. `onProgress` follows each committed write.
    public init(pipeline: IngestPipeline, device: String, sensor: StandardSensorInfo, settings: Settings = Settings(),
                record: (@Sendable (Progress) throws -> Void)? = nil,
                onProgress: @escaping @Sendable (Progress) -> Void = { _ in },
                onProblem: @escaping @Sendable (Problem) -> Void = { _ in }) throws {
        self.record = record
        self.pipeline = pipeline
        self.device = device
        self.sensor = sensor
        self.settings = settings
        self.onProgress = onProgress
        self.onProblem = onProblem
        let record = try pipeline.participantRecord(device: device)
        timeZone = (try? record.current().timeZone) ?? pipeline.defaultTimeZone ?? .current
        rows = SensorRows(profiles: sensor.profiles, timeZone: timeZone, battery: sensor.batteryPercent)
        try pipeline.store.recordSensor(device: device, name: sensor.modelName ?? sensor.profiles.map(\.rawValue).joined(separator: "+"))
    }

    /// Adds one value; hands the rows to the stream's queue to be written, and the days to be
    /// recomputed, when due. Returns without waiting for either.
    public func add(_ sample: SensorSample) {
        let before = rows.slots.count + rows.beats.count
        rows.add(sample)
        let now = sample.receivedAtMilliseconds
        if rows.slots.count + rows.beats.count > before, oldestPendingMs == nil { oldestPendingMs = now }
        let day = ZonedTime.dayNumber(ofUnix: now.floorDivided(by: 1_000).quotient, in: timeZone)
        let newDay = lastRecomputeDay.map { day > $0 } ?? false
        if lastRecomputeMs == nil { (lastRecomputeMs, lastRecomputeDay) = (now, day) }
        let recomputeDue = lastRecomputeMs.map { now - $0 >= settings.recomputeSeconds * 1_000 } ?? false || newDay
        if let oldest = oldestPendingMs, now - oldest >= settings.flushSeconds * 1_000 || recomputeDue {
            flush()
        } else if case .battery = sample.measurement, oldestPendingMs == nil {
            flush()  // nothing to write: says the new level
        }
        if recomputeDue {
            writer.submit { [self] in recompute() }
            (lastRecomputeMs, lastRecomputeDay) = (now, day)
        }
    }

    /// Writes what is left and waits until every write handed over is done (the session ended);
    /// the caller recomputes the pending days. Returns why values could not all be kept, if so.
    @discardableResult
    public func finish() -> String? {
        flush()
        return writer.sync { failureOnWriter }
    }

    /// The latest failure to store or recompute, as ``finish()`` returns it; `nil` when none is left.
    /// Call it after ``finish()`` (it waits for the stream's queue).
    public var failure: String? { writer.sync { failureOnWriter } }

    /// Seconds with a value the stream stored (waits for the stream's queue).
    public var samplesStored: Int { writer.sync { totalStored } }

    /// On the writer: what is still wrong.
    private var failureOnWriter: String? {
        if let storeFailure {
            let waiting = unsaved.reduce(0) { $0 + $1.slots.count }
            let lost = givenUp > 0 ? " (\(givenUp) older second(s) given up)" : ""
            return "cannot store \(waiting) second(s) with a value of \(device)\(lost): \(storeFailure)"
        }
        return recomputeFailure.map { "cannot recompute the days of \(device) (they stay pending): \($0)" }
    }

    /// Hands the rows made so far to the writer, with what progress says about the stream now.
    private func flush() {
        let taken = rows.take()
        oldestPendingMs = nil
        let (last, battery, dropped) = (rows.lastSampleMs, rows.battery, rows.dropped)
        writer.submit { [self] in write(taken, lastSampleMs: last, battery: battery, dropped: dropped) }
    }

    /// On the writer: stores `taken` after whatever earlier failed writes kept, in one write.
    private func write(_ taken: (slots: [Slot], beats: [Beat]), lastSampleMs: Int64?, battery: Int?, dropped: Int) {
        if !taken.slots.isEmpty || !taken.beats.isEmpty { unsaved.append(taken) }
        giveUpBeyondLimit()
        var stored = 0
        func progress(_ stored: Int) -> Progress {
            Progress(device: device, sensor: sensor, samplesStored: stored, totalStored: totalStored + stored,
                     lastSampleMs: lastSampleMs, battery: battery, dropped: dropped)
        }
        if !unsaved.isEmpty {
            let file = VerifiedFile(serial: device, model: nil, slots: unsaved.flatMap(\.slots), beats: unsaved.flatMap(\.beats))
            do {
                if let record {
                    stored = try pipeline.storeDeferringSummaries([file]) { report in try record(progress(report.slotsInserted)) }.slotsInserted
                } else {
                    stored = try pipeline.storeDeferringSummaries([file]).slotsInserted
                }
                totalStored += stored
                unsaved = []
                if storeFailure != nil {
                    storeFailure = nil
                    onProblem(.storedAgain(device: device, seconds: stored, givenUp: givenUp))
                }
                givenUp = 0
            } catch {
                // Kept for the next write; the session goes on (a full disk must not cost the link).
                if storeFailure == nil {
                    onProblem(.cannotStore(device: device, reason: "\(error)", waiting: file.slots.count))
                }
                storeFailure = "\(error)"
                return
            }
        } else if let record {
            // Nothing to store (a battery level): what the caller records of it, on its own.
            do { try pipeline.store.transaction { try record(progress(0)) } } catch {
                if storeFailure == nil { onProblem(.cannotStore(device: device, reason: "\(error)", waiting: 0)) }
            }
        }
        onProgress(Progress(device: device, sensor: sensor, samplesStored: stored, totalStored: totalStored,
                            lastSampleMs: lastSampleMs, battery: battery, dropped: dropped))
    }

    /// On the writer: while writes fail, drops the oldest waiting batches beyond
    /// ``Settings/maxWaitingSeconds``, and says so the first time in a failure.
    private func giveUpBeyondLimit() {
        var waiting = unsaved.reduce(0) { $0 + $1.slots.count }
        guard waiting > settings.maxWaitingSeconds else { return }
        var dropped = 0
        while waiting > settings.maxWaitingSeconds, unsaved.count > 1 {
            let oldest = unsaved.removeFirst()
            dropped += oldest.slots.count
            waiting -= oldest.slots.count
        }
        if givenUp == 0, dropped > 0 { onProblem(.givenUp(device: device, seconds: dropped, limit: settings.maxWaitingSeconds)) }
        givenUp += dropped
    }

    /// On the writer: recomputes the sensor's pending days (behind the write handed over before).
    private func recompute() {
        do {
            _ = try pipeline.recomputePending(device: device)
            recomputeFailure = nil
        } catch {
            if recomputeFailure == nil { onProblem(.cannotRecompute(device: device, reason: "\(error)")) }
            recomputeFailure = "\(error)"
        }
    }
}
