import BraceletProtocol
import BraceletTransport

/// One sync of one bracelet into the store, as `listen --db` and the gateway run it: connect,
/// secure (the connector's business), transfer every file, commit each through `pipeline` before
/// it is erased, record each erase, recompute the touched days once, disconnect.
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

        /// Whether every file was transferred and every touched day recomputed.
        public var completed: Bool { error == nil && recomputeError == nil && report?.syncCompleted == true }
    }

    /// Runs one sync (see the type's contract) into `sink`; an ``IngestPipeline`` sink also gets
    /// the erases recorded and the pending days recomputed. `onEvent` sees every session event, from
    /// this thread; `onProgress` sees where the sync stands (connecting at once, then asking the
    /// bracelet, then the backlog's transfer after each of its events) from this thread, and the
    /// recompute's progress through the pipeline's own ``IngestPipeline/onProgress``.
    public static func run(connector: BraceletConnector, sink: TransferSink, configuration: SessionConfiguration,
                           onEvent: @escaping (SessionEvent) -> Void = { _ in },
                           onProgress: ((WorkProgress) -> Void)? = nil) -> Outcome {
        var outcome = Outcome()
        var serial = ""
        var backlogSeen: Set<FileKind> = []
        let pipeline = sink as? IngestPipeline
        let clock = ContinuousClock(), origin = clock.now
        var backlog = BacklogProgress()
        var connections = 0
        onProgress?(.connecting(attempt: 1))
        let session = BraceletSession(connector: connector, sink: sink, configuration: configuration) { event in
            if let onProgress {
                let elapsed = origin.duration(to: clock.now).components
                backlog.apply(event, at: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
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
        if let pipeline {
            do { _ = try pipeline.recomputePending() } catch { outcome.recomputeError = "\(error)" }
        }
        return outcome
    }
}
