/// One value a standard (Bluetooth SIG) health sensor sent: what a strap, an oximeter or a
/// thermometer streams, in the form its characteristic defines.
public enum SensorMeasurement: Sendable, Hashable, CustomStringConvertible {
    /// A Heart Rate Measurement (0x2A37).
    case heartRate(HeartRateMeasurement)
    /// A PLX Continuous Measurement (0x2A5F).
    case plxContinuous(PLXContinuousMeasurement)
    /// A PLX Spot-Check Measurement (0x2A5E).
    case plxSpotCheck(PLXSpotCheckMeasurement)
    /// A Temperature Measurement (0x2A1C).
    case temperature(TemperatureMeasurement)
    /// A Battery Level (0x2A19), percent.
    case battery(Int)

    /// Decodes the value of `characteristic`; `nil` for a characteristic that is none of these.
    public static func decode(_ value: [UInt8], characteristic: BluetoothUUID) throws -> SensorMeasurement? {
        switch characteristic {
        case GATTNumbers.heartRateMeasurement: .heartRate(try HeartRateMeasurement(value: value))
        case GATTNumbers.plxContinuousMeasurement: .plxContinuous(try PLXContinuousMeasurement(value: value))
        case GATTNumbers.plxSpotCheckMeasurement: .plxSpotCheck(try PLXSpotCheckMeasurement(value: value))
        case GATTNumbers.temperatureMeasurement: .temperature(try TemperatureMeasurement(value: value))
        case GATTNumbers.batteryLevel: .battery(try StandardCharacteristicText.batteryLevel(value))
        default: nil
        }
    }

    /// One short line for a log.
    public var description: String {
        switch self {
        case .heartRate(let m): "heart rate \(m.bpm) bpm"
        case .plxContinuous(let m): "SpO2 \(m.normal.spo2) %, pulse \(m.normal.pulseRate) bpm"
        case .plxSpotCheck(let m): "spot check SpO2 \(m.reading.spo2) %, pulse \(m.reading.pulseRate) bpm"
        case .temperature(let m): "temperature \(m.value) \(m.fahrenheit ? "°F" : "°C")"
        case .battery(let level): "battery \(level) %"
        }
    }
}
