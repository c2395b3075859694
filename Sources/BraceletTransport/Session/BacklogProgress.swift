import BraceletProtocol

/// Where a session stands in the bracelet's whole backlog (every sealed file of every kind): files
/// and bytes done and in all, the transfer rate and the time left. Folds ``SessionEvent``s; the
/// caller supplies the time of each event, so the arithmetic is testable without a clock.
///
/// Totals come from the bracelet's queue status (per kind, at each connection, rounded up to whole
/// KiB); without it (older firmware) they grow file by file and ``bytesTotal`` stays `nil` until the
/// last file. A total never falls below what is already done.
public struct BacklogProgress: Sendable {
    /// Per kind: files and bytes committed in this session.
    private var done: [FileKind: (files: Int, bytes: Int)] = [:]
    /// Per kind: files and bytes in all, as of the latest queue status (done + waiting).
    private var totals: [FileKind: (files: Int, bytes: Int)] = [:]
    /// The file being transferred: kind, size and bytes held.
    public private(set) var current: (kind: FileKind, size: Int, received: Int)?
    /// Bytes received in this session (not counting bytes held from before a resume), for the rate.
    public private(set) var bytesTransferred = 0
    /// Seconds (caller's clock) when the first transfer of the session started.
    public private(set) var startedAt: Double?
    /// Seconds (caller's clock) of the latest event.
    public private(set) var lastEventAt: Double?

    /// Nothing done yet.
    public init() {}

    /// Files committed in this session.
    public var filesDone: Int { done.values.reduce(0) { $0 + $1.files } }
    /// Bytes committed, plus those held of the file being transferred.
    public var bytesDone: Int { done.values.reduce(0) { $0 + $1.bytes } + (current?.received ?? 0) }
    /// Files in the whole backlog, when the bracelet said (`nil`: unknown).
    public var filesTotal: Int? {
        totals.isEmpty ? nil : max(totals.values.reduce(0) { $0 + $1.files }, filesDone + (current == nil ? 0 : 1))
    }
    /// Bytes in the whole backlog, when the bracelet said (`nil`: unknown). Exact once every file
    /// of a kind is done (the bracelet counts whole KiB).
    public var bytesTotal: Int? {
        guard !totals.isEmpty else { return nil }
        var sum = 0
        for kind in Set(totals.keys).union(done.keys) {
            let d = done[kind] ?? (0, 0)
            let known = d.bytes + (current?.kind == kind ? current?.size ?? 0 : 0)
            if let t = totals[kind], d.files < t.files { sum += max(t.bytes, known) } else { sum += known }
        }
        return sum
    }

    /// Bytes per second since the first transfer started (`nil` before a second has passed).
    public var rate: Double? {
        guard let startedAt, let lastEventAt, lastEventAt - startedAt >= 1, bytesTransferred > 0 else { return nil }
        return Double(bytesTransferred) / (lastEventAt - startedAt)
    }

    /// Seconds left at the current rate (`nil` when the total or the rate is unknown).
    public var secondsLeft: Double? {
        guard let total = bytesTotal, let rate else { return nil }
        return Double(max(0, total - bytesDone)) / rate
    }

    /// Folds one event seen at `seconds` (any monotonic clock); returns whether the numbers changed.
    @discardableResult
    public mutating func apply(_ event: SessionEvent, at seconds: Double) -> Bool {
        lastEventAt = seconds
        switch event {
        case let .backlog(kind, files, bytes):
            let d = done[kind] ?? (0, 0)
            totals[kind] = (d.files + files, d.bytes + bytes)
        case let .transferStarted(kind, size, resumeAt):
            if startedAt == nil { startedAt = seconds }
            current = (kind, size, resumeAt)
        case let .transferProgress(kind, received, size):
            if let c = current, c.kind == kind, c.size == size {
                bytesTransferred += max(0, received - c.received)
                current = (kind, size, received)
            } else {
                current = (kind, size, received)
            }
        case let .committed(kind, size):
            var d = done[kind] ?? (0, 0)
            d.files += 1
            d.bytes += size
            done[kind] = d
            current = nil
        case .linkLost, .sizeMismatch, .verificationFailed:
            // The file is resumed (its held bytes stay counted) or asked for again.
            return true
        default:
            return false
        }
        return true
    }
}
