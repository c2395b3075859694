import BraceletProtocol

/// What a bracelet says about itself at the start of a session, before its clock is set.
public struct DeviceState: Sendable, Equatable, CustomStringConvertible {
    /// Its clock: the Current Time value (0x2A2B: year u16, month, day, hours, minutes, seconds, ...,
    /// local time without an offset) as read; `nil` without a Current Time characteristic.
    public var currentTime: [UInt8]?
    /// Battery level, percent.
    public var batteryPercent: Int?
    /// Wearing state 0 (not worn) ... 4 (worn on the wrist).
    public var wearing: Int?
    /// Whether it is on its charger.
    public var isCharging: Bool?

    /// Nothing known.
    public init(currentTime: [UInt8]? = nil, batteryPercent: Int? = nil, wearing: Int? = nil, isCharging: Bool? = nil) {
        self.currentTime = currentTime
        self.batteryPercent = batteryPercent
        self.wearing = wearing
        self.isCharging = isCharging
    }

    /// One line for a log.
    public var description: String {
        "battery \(batteryPercent.map { "\($0) %" } ?? "?"), wearing \(wearing.map(String.init) ?? "?")"
            + (isCharging == true ? ", charging" : "")
    }
}
