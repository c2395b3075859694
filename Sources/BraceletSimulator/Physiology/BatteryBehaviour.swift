/// How the simulated bracelet's battery drains and when the person charges it.
public struct BatteryBehaviour: Sendable, Equatable {
    /// Battery level at the model's start, percent (1 ... 100).
    public var initialPercent: Double
    /// Drain while not charging, percent per hour (0 ... 10). 0.55 %/h is the typical plan's 7.5 days.
    public var drainPercentPerHour: Double
    /// At the daily off-wrist period the person puts the bracelet on its charger when the level is
    /// below this percentage, and waits until it is full (0 ... 100; 0 never charges).
    public var chargeBelowPercent: Double
    /// Charging speed, percent per minute (0.1 ... 10).
    public var chargePercentPerMinute: Double

    /// Creates a battery behaviour; `PhysiologyModel` checks the ranges.
    public init(initialPercent: Double, drainPercentPerHour: Double, chargeBelowPercent: Double,
                chargePercentPerMinute: Double) {
        self.initialPercent = initialPercent
        self.drainPercentPerHour = drainPercentPerHour
        self.chargeBelowPercent = chargeBelowPercent
        self.chargePercentPerMinute = chargePercentPerMinute
    }

    /// Starts at 46 %, drains 0.55 %/h, charged at the shower when below 45 %, 1.5 %/min.
    public static let typical = BatteryBehaviour(
        initialPercent: 46, drainPercentPerHour: 0.55, chargeBelowPercent: 45, chargePercentPerMinute: 1.5)

    func problem() -> String? {
        if !(1...100).contains(initialPercent) { return "initial battery \(initialPercent) % is outside 1...100" }
        if !(0...10).contains(drainPercentPerHour) { return "battery drain \(drainPercentPerHour) %/h is outside 0...10" }
        if !(0...100).contains(chargeBelowPercent) { return "charge threshold \(chargeBelowPercent) % is outside 0...100" }
        if !(0.1...10).contains(chargePercentPerMinute) {
            return "charge speed \(chargePercentPerMinute) %/min is outside 0.1...10"
        }
        return nil
    }
}
