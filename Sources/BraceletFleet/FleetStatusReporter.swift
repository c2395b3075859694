import BraceletVitality
import Foundation

/// Keeps a gateway's status (what its study page shows of its devices and sinks,
/// ``BraceletVitality/StudyGatewayStatus``) in the fleet database, beside its deliveries, at a
/// bounded rate: read at most once per ``everyMilliseconds``, written when it says something new,
/// and again after ``heartbeatMilliseconds`` when it does not (the rows' time then shows the
/// gateway still reports).
///
/// Status is state, not history: an outage loses nothing worth keeping, since the first report
/// after it carries everything the page shows, and the server keeps the newest by the time it was
/// read. That is why it is written by the delivery rather than queued in the outbox, where every
/// change would be an entry to keep, deliver and record for every sink.
public final class FleetStatusReporter: @unchecked Sendable {
    /// Least time between two reads, ms.
    public let everyMilliseconds: Int64
    /// How long an unchanged status goes unwritten, ms.
    public let heartbeatMilliseconds: Int64
    private let read: @Sendable () throws -> StudyGatewayStatus
    private let lock = NSLock()
    /// When the status was last read (under ``lock``).
    private var lastRead: Int64?
    /// The status last written and when (under ``lock``).
    private var lastWritten: (status: StudyGatewayStatus, at: Int64)?

    /// A reporter of what `read` returns (called on the delivery's task), read at most every
    /// `everyMilliseconds` (at least 1) and written unchanged again after `heartbeatMilliseconds`.
    public init(everyMilliseconds: Int64 = 60_000, heartbeatMilliseconds: Int64 = 900_000,
                read: @escaping @Sendable () throws -> StudyGatewayStatus) {
        self.everyMilliseconds = max(1, everyMilliseconds)
        self.heartbeatMilliseconds = max(self.everyMilliseconds, heartbeatMilliseconds)
        self.read = read
    }

    /// What one report wrote.
    public struct Written: Sendable, Equatable {
        /// Devices whose status was written (those assigned to the sink's role).
        public var devices: Int
        /// Sinks whose state was written.
        public var sinks: Int
    }

    /// Reads the status and writes it through `sink` when due at `now` (the forwarder's clock, ms):
    /// a read is due ``everyMilliseconds`` after the last (at once when `ignoringInterval`), a write
    /// when the status changed since the last one written or that one is older than the heartbeat.
    /// Returns what was written, `nil` when nothing was due.
    ///
    /// - Throws: the store's error reading the status, the sink's writing it (both tried again at the
    ///   next read), `CancellationError`.
    public func reportIfDue(to sink: PostgresSink, now: Int64, ignoringInterval: Bool = false) async throws -> Written? {
        let due = lock.withLock { () -> Bool in
            if !ignoringInterval, let lastRead, now - lastRead < everyMilliseconds, now >= lastRead { return false }
            lastRead = now
            return true
        }
        guard due else { return nil }
        let status = try read()
        let fresh = lock.withLock { () -> Bool in
            guard let lastWritten, lastWritten.status.saysTheSame(as: status) else { return true }
            return now - lastWritten.at >= heartbeatMilliseconds || now < lastWritten.at
        }
        guard fresh else { return nil }
        let devices = try await sink.report(status)
        lock.withLock { lastWritten = (status, now) }
        return Written(devices: devices, sinks: status.sinks.count)
    }
}
