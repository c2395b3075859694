/// When to retry a failed delivery.
///
/// Exponential backoff with "equal jitter": after the n-th failure the nominal delay is
/// `min(maxDelay, baseDelay * 2^(n-1))`, and the actual delay is drawn uniformly from
/// `[nominal / 2, nominal]`. Half the delay is guaranteed (no hammering a sick receiver), half is
/// random (many bracelets do not retry in lock step). There is no last attempt: a transient failure
/// is retried at the cap for as long as it lasts, because a gateway's uplink may be down for hours.
public struct RetryPolicy: Sendable, Equatable {
    /// Nominal delay after the first failure, milliseconds.
    public var baseDelayMilliseconds: Int64
    /// Upper bound of the nominal delay, milliseconds.
    public var maxDelayMilliseconds: Int64

    /// The longest delay a policy may have: one day. A longer cap would hide an outage's end for
    /// days, and keeps every schedule far from `Int64` limits.
    public static let longestDelayMilliseconds: Int64 = 86_400_000

    /// Creates a policy; throws ``SyncError/invalidRetryPolicy(_:)`` for a base below 1 ms, a cap below
    /// the base or a cap above one day.
    public init(baseDelayMilliseconds: Int64 = 1_000, maxDelayMilliseconds: Int64 = 300_000) throws {
        guard baseDelayMilliseconds >= 1 else { throw SyncError.invalidRetryPolicy("base delay must be at least 1 ms, got \(baseDelayMilliseconds)") }
        guard maxDelayMilliseconds >= baseDelayMilliseconds else {
            throw SyncError.invalidRetryPolicy("max delay \(maxDelayMilliseconds) ms is below the base delay \(baseDelayMilliseconds) ms")
        }
        guard maxDelayMilliseconds <= RetryPolicy.longestDelayMilliseconds else {
            throw SyncError.invalidRetryPolicy("max delay \(maxDelayMilliseconds) ms is above one day (86400 s)")
        }
        self.baseDelayMilliseconds = baseDelayMilliseconds
        self.maxDelayMilliseconds = maxDelayMilliseconds
    }

    /// Creates a policy from delays in seconds as a user gives them (`--base-delay`, `--max-delay`).
    ///
    /// - Throws: ``SyncError/invalidOption(name:value:rule:)`` for a value that is not a finite number
    ///   of seconds in range, then the checks of ``init(baseDelayMilliseconds:maxDelayMilliseconds:)``.
    public init(baseDelaySeconds: Double, maxDelaySeconds: Double) throws {
        let longest = Double(RetryPolicy.longestDelayMilliseconds) / 1000
        try self.init(baseDelayMilliseconds: SyncDuration.milliseconds(baseDelaySeconds, option: "--base-delay", upTo: longest),
                      maxDelayMilliseconds: SyncDuration.milliseconds(maxDelaySeconds, option: "--max-delay", upTo: longest))
    }

    /// The nominal (jitter-free) delay after `failures` failed attempts (1-based), milliseconds.
    public func nominalDelayMilliseconds(afterFailures failures: Int) -> Int64 {
        let exponent = max(0, min(failures, 63) - 1)
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

/// Turns a number of seconds a user gave into milliseconds, refusing what is not a finite number in
/// range: a conversion of `inf` or `1e300` to an integer would stop the process.
public enum SyncDuration {
    /// `seconds` as whole milliseconds (at least 1).
    ///
    /// - Throws: ``SyncError/invalidOption(name:value:rule:)`` unless `seconds` is finite, at least
    ///   0.001 and at most `upTo`.
    public static func milliseconds(_ seconds: Double, option: String, upTo longest: Double) throws -> Int64 {
        guard seconds.isFinite, seconds >= 0.001, seconds <= longest else {
            throw SyncError.invalidOption(name: option, value: "\(seconds)",
                                          rule: "a number of seconds from 0.001 to \(Int(longest))")
        }
        return max(1, Int64((seconds * 1000).rounded()))
    }
}
