import BraceletProtocol

/// Settings of a ``BraceletSession``.
public struct SessionConfiguration {
    /// The measurement plan to set after every connection.
    public var plan: MeasurementPlan = .typical
    /// The local time-zone offset to send with set time, minutes east of UTC.
    public var timeZoneOffsetMinutes: Int = 0
    /// The current Unix time (UTC seconds).
    public var now: () -> Int64
    /// The current Unix time in milliseconds: when a standard sensor's measurement arrived.
    public var nowMilliseconds: () -> Int64
    /// File kinds to transfer, in order (spec §8: metrics, beats, logs).
    public var kinds: [FileKind] = [.metrics, .beats, .logs]
    /// How long to wait for a command's response (spec: 2 s).
    public var commandTimeout: Duration = .seconds(2)
    /// How long to wait for any ATT response (ATT: 30 s).
    public var requestTimeout: Duration = .seconds(30)
    /// Silence that ends a read's packet stream (spec: 1 s).
    public var packetSilence: Duration = .seconds(1)
    /// Consecutive failed connections (without progress) before giving up.
    public var maximumReconnects = 6
    /// First wait before reconnecting; doubles up to ``maximumBackoff``.
    public var initialBackoff: Duration = .seconds(1)
    /// Longest wait before reconnecting.
    public var maximumBackoff: Duration = .seconds(30)
    /// The model expected (e.g. from advertising); a disagreement is reported, Device Information wins.
    public var expectedModel: DeviceModel?
    /// Before setting the time, read the bracelet's clock and status and report them
    /// (``SessionEvent/deviceState(_:)``): what an unattended gateway watches (battery, wearing, clock).
    public var readDeviceState = false
    /// Subscribe to Heart Rate notifications and report them.
    public var liveHeartRate = true
    /// After the transfer, keep the link open this long for live notifications (0: disconnect).
    public var liveDuration: Duration = .zero
    /// How long to stay subscribed to a standard sensor (which holds no files, so every second not
    /// listened to is lost); `nil`: ``liveDuration``. The gateway keeps a sensor subscribed until
    /// the link drops or it stops.
    public var sensorListenDuration: Duration?
    /// Stop early when this returns true (e.g. Ctrl-C); checked between steps, never mid-commit.
    public var shouldStop: () -> Bool = { false }
    /// Sees every ATT PDU (for `--record`).
    public var tap: ((ATTDirection, ATTPDU) -> Void)?
    /// Called after each connection is made (`true`) and after it ends (`false`), for recorders.
    public var onLinkState: ((Bool) -> Void)?

    /// The defaults; `now` reads the system clock.
    public init() {
        now = { Int64(SystemClock.unixSeconds()) }
        nowMilliseconds = { SystemClock.unixMilliseconds() }
    }
}

import Glibc

/// The wall clock.
enum SystemClock {
    static func unixSeconds() -> Int { Int(time(nil)) }
    static func unixMilliseconds() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1_000 + Int64(t.tv_nsec) / 1_000_000
    }
}
