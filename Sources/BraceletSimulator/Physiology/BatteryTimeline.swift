/// The battery level over time as straight pieces: from each breakpoint on, the level changes
/// linearly until the next breakpoint.
struct BatteryTimeline: Sendable {
    struct Breakpoint: Sendable {
        var time: Int64
        var level: Double
        var percentPerSecond: Double
    }

    private(set) var breakpoints: [Breakpoint]

    init(start: Int64, level: Double, percentPerSecond: Double) {
        breakpoints = [Breakpoint(time: start, level: level, percentPerSecond: percentPerSecond)]
    }

    /// The unclamped level at `t`.
    func level(at t: Double) -> Double {
        var low = 0
        var high = breakpoints.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Double(breakpoints[middle].time) <= t { low = middle } else { high = middle - 1 }
        }
        let point = breakpoints[low]
        return min(100, max(0, point.level + point.percentPerSecond * (t - Double(point.time))))
    }

    /// From `time` on the level changes by `percentPerSecond`. Times must be added in order.
    mutating func change(at time: Int64, percentPerSecond: Double) {
        let level = level(at: Double(time))
        breakpoints.append(Breakpoint(time: time, level: level, percentPerSecond: percentPerSecond))
    }
}
