/// When to retry a failed delivery and when to give up.
///
/// Exponential backoff with "equal jitter": after the n-th failure the nominal delay is
/// `min(maxDelay, baseDelay * 2^(n-1))`, and the actual delay is drawn uniformly from
/// `[nominal / 2, nominal]`. Half the delay is guaranteed (no hammering a sick receiver), half is
/// random (many bracelets do not retry in lock step).
public struct RetryPolicy: Sendable, Equatable {
    /// Nominal delay after the first failure, milliseconds.
    public var baseDelayMilliseconds: Int64
    /// Upper bound of the nominal delay, milliseconds.
    public var maxDelayMilliseconds: Int64
    /// After this many failed attempts an entry becomes dead (with its last error).
    public var maxAttempts: Int

    /// Creates a policy; throws ``SyncError/invalidRetryPolicy(_:)`` for non-positive values or a cap
    /// below the base.
    public init(baseDelayMilliseconds: Int64 = 1_000, maxDelayMilliseconds: Int64 = 300_000, maxAttempts: Int = 8) throws {
        guard baseDelayMilliseconds >= 1 else { throw SyncError.invalidRetryPolicy("base delay must be at least 1 ms, got \(baseDelayMilliseconds)") }
        guard maxDelayMilliseconds >= baseDelayMilliseconds else {
            throw SyncError.invalidRetryPolicy("max delay \(maxDelayMilliseconds) ms is below the base delay \(baseDelayMilliseconds) ms")
        }
        guard maxAttempts >= 1 else { throw SyncError.invalidRetryPolicy("max attempts must be at least 1, got \(maxAttempts)") }
        self.baseDelayMilliseconds = baseDelayMilliseconds
        self.maxDelayMilliseconds = maxDelayMilliseconds
        self.maxAttempts = maxAttempts
    }

    /// The nominal (jitter-free) delay after `failures` failed attempts (1-based), milliseconds.
    public func nominalDelayMilliseconds(afterFailures failures: Int) -> Int64 {
        let exponent = max(0, min(failures - 1, 62))
        let (scaled, overflow) = baseDelayMilliseconds.multipliedReportingOverflow(by: Int64(1) << Int64(exponent))
        return overflow ? maxDelayMilliseconds : min(maxDelayMilliseconds, scaled)
    }

    /// The delay after `failures` failed attempts with jitter: `unitRandom` in `[0, 1]` picks a point
    /// in `[nominal / 2, nominal]`.
    public func delayMilliseconds(afterFailures failures: Int, unitRandom: Double) -> Int64 {
        let nominal = nominalDelayMilliseconds(afterFailures: failures)
        let floor = nominal / 2
        let fraction = unitRandom.isFinite ? min(1, max(0, unitRandom)) : 0
        return floor + Int64((Double(nominal - floor) * fraction).rounded(.down))
    }
}
