import BraceletProtocol
import BraceletTransport
import Synchronization

/// One sync of one bracelet into the store, as `listen --db` and the gateway run it: connect,
/// secure (the connector's business), transfer every file, commit each through `pipeline` before
/// it is erased, record each erase, recompute the touched days once, disconnect.
///
/// A standard health sensor (a strap, an oximeter, a thermometer) holds no files: its session
/// streams measurements for as long as it is listened to, and into an ``IngestPipeline`` they are
/// kept as the sensor's rows through a ``SensorStream`` (written every few seconds, its days
/// recomputed on the stream's schedule), the same code whatever link carries them.
///
/// Whatever ends the session (a stop request, a link given up, an error), the days already
/// committed are recomputed before ``run(connector:pipeline:configuration:onEvent:)`` returns, so
/// the store never keeps committed rows outside their summaries longer than one sync; what cannot
/// be recomputed stays pending for the next sync.
public enum LiveSync {
    /// What a sync did and learnt.
    public struct Outcome: Sendable {
        /// The session's report (files, bytes, connections, serial, whether it completed).
        public var report: BraceletSession.Report?
        /// Why the session failed; `nil` when it ran to its end.
        public var error: SessionError?
        /// The bracelet's clock and status, when read (``SessionConfiguration/readDeviceState``).
        public var deviceState: DeviceState?
        /// Bytes the bracelet said it held waiting, summed over its kinds, at the first connection.
        public var backlogBytes: Int?
        /// Why recomputing the committed days failed (they stay pending); `nil` when it did not.
        public var recomputeError: String?
        /// A warning about recording an erase in the store (the erase itself happened).
        public var eraseRecordErrors: [String] = []
        /// What the device said it is when it is a standard sensor (also when the session then
        /// failed and ``report`` is `nil`); `nil` for a bracelet.
        public var sensor: StandardSensorInfo?
        /// A standard sensor's stream, as last kept (``SensorStream/Progress``); `nil` for a bracelet.
        public var sensorProgress: SensorStream.Progress?
        /// Seconds with a value a standard sensor's streams stored in this session, summed over its
        /// connections (each reconnect starts a stream of its own).
        public var sensorSamplesKept = 0
        /// Why a standard sensor's values could not all be kept (the last failure); `nil` when they were.
        public var sensorError: String?

        /// Whether every file was transferred and every touched day recomputed.
        public var completed: Bool { error == nil && recomputeError == nil && report?.syncCompleted == true }
    }

    /// Runs one sync (see the type's contract) into `sink`; an ``IngestPipeline`` sink also gets
    /// the erases recorded and the pending days recomputed. `onEvent` sees every session event, from
    /// this thread; `onProgress` sees where the sync stands (connecting at once, then asking the
    /// bracelet, then the backlog's transfer after each of its events) from this thread, and the
    /// recompute's progress through the pipeline's own ``IngestPipeline/onProgress``.
    /// `sensor` sets how a standard sensor's stream is written and summarised; `onSensorProgress`
    /// sees what its stream kept after each write, and `onSensorProblem` a failure to keep it when it
    /// starts and ends (``SensorStream/Problem``), both from the stream's queue; `recordSensorProgress`
    /// writes what the caller keeps of each write inside the transaction that stores it
    /// (``SensorStream``'s `record`). `knownSensor` is
    /// the device a caller knows the endpoint to be a standard sensor of: a session that ends before
    /// the sensor says so recomputes that device's pending days only, not the whole store's.
    public static func run(connector: BraceletConnector, sink: TransferSink, configuration: SessionConfiguration,
                           sensor: SensorStream.Settings = SensorStream.Settings(), knownSensor: String? = nil,
                           onEvent: @escaping (SessionEvent) -> Void = { _ in },
                           onProgress: ((WorkProgress) -> Void)? = nil,
                           recordSensorProgress: (@Sendable (SensorStream.Progress) throws -> Void)? = nil,
                           onSensorProgress: @escaping @Sendable (SensorStream.Progress) -> Void = { _ in },
                           onSensorProblem: @escaping @Sendable (SensorStream.Problem) -> Void = { _ in }) -> Outcome {
        var outcome = Outcome()
        var serial = ""
        var backlogSeen: Set<FileKind> = []
        let pipeline = sink as? IngestPipeline
        var stream: SensorStream?
        var sensorDevices: Set<String> = []
        let kept = Mutex<(progress: SensorStream.Progress?, total: Int)>((nil, 0))
        func endStream() {
            guard let ended = stream else { return }
            if let failure = ended.finish() { outcome.sensorError = failure }
            stream = nil
        }
        let clock = ContinuousClock(), origin = clock.now
        var backlog = BacklogProgress()
        var connections = 0
        onProgress?(.connecting(attempt: 1))
        let session = BraceletSession(connector: connector, sink: sink, configuration: configuration) { event in
            if let onProgress {
                backlog.apply(event, at: origin.duration(to: clock.now).inSeconds)
                switch event {
                case .reconnecting: onProgress(.connecting(attempt: connections + 1))
                case .connected:
                    connections += 1
                    onProgress(.askingBracelet)
                case .backlog, .transferStarted, .transferProgress, .committed: onProgress(.transferring(backlog))
                default: break
                }
            }
            switch event {
            case .standardSensor(let info):
                // Said first, so that the caller writes what it holds for the sensor's record (the
                // gateway's enrolled settings) before the stream's first rows are computed with it.
                onEvent(event)
                endStream()
                outcome.sensor = info
                guard let pipeline else { return }
                let device = info.identity(address: connector.label)
                sensorDevices.insert(device)
                do {
                    stream = try SensorStream(pipeline: pipeline, device: device, sensor: info, settings: sensor,
                                              record: recordSensorProgress, onProgress: { progress in
                        kept.withLock { $0 = (progress, $0.total + progress.samplesStored) }
                        onSensorProgress(progress)
                    }, onProblem: onSensorProblem)
                } catch {
                    outcome.sensorError = "cannot keep the values of \(device): \(error)"
                }
                return
            case .sensorSample(let sample):
                stream?.add(sample)
            case .linkLost:
                endStream()
            case .device(_, let s, _): serial = s
            case .deviceState(let state): outcome.deviceState = state
            case let .backlog(kind, _, bytes):
                // The first connection's count is the backlog; later ones after a drop count what is left.
                if backlogSeen.insert(kind).inserted { outcome.backlogBytes = (outcome.backlogBytes ?? 0) + bytes }
            case .erased(let kind, _):
                if let pipeline {
                    do { try pipeline.recordErased(serial: serial, fileKind: kind.description) } catch {
                        outcome.eraseRecordErrors.append("could not record the erase of \(kind) in the database: \(error)")
                    }
                }
            default: break
            }
            onEvent(event)
        }
        do { outcome.report = try session.run() } catch { outcome.error = error }
        endStream()
        (outcome.sensorProgress, outcome.sensorSamplesKept) = kept.withLock { $0 }
        if let pipeline {
            do {
                // A sensor's session recomputes its own days only: the other devices of the store
                // (sensors streaming beside it) are theirs to recompute, on their own schedules.
                if sensorDevices.isEmpty, let knownSensor {
                    _ = try pipeline.recomputePending(device: knownSensor)
                } else if sensorDevices.isEmpty {
                    _ = try pipeline.recomputePending()
                } else {
                    for device in sensorDevices.sorted() { _ = try pipeline.recomputePending(device: device) }
                }
            } catch { outcome.recomputeError = "\(error)" }
        }
        return outcome
    }
}
