/// The Bluetooth SIG health profiles a standard sensor may speak, and the measurement
/// characteristic each one streams.
public enum StandardHealthProfile: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Heart Rate (service 0x180D): Heart Rate Measurement (0x2A37) by notification.
    case heartRate = "heart-rate"
    /// Pulse Oximeter (service 0x1822): PLX Continuous Measurement (0x2A5F) by notification and
    /// PLX Spot-Check Measurement (0x2A5E) by indication.
    case pulseOximeter = "pulse-oximeter"
    /// Health Thermometer (service 0x1809): Temperature Measurement (0x2A1C) by indication.
    case thermometer

    /// The profile's service.
    public var service: BluetoothUUID {
        switch self {
        case .heartRate: GATTNumbers.heartRateService
        case .pulseOximeter: GATTNumbers.pulseOximeterService
        case .thermometer: GATTNumbers.healthThermometerService
        }
    }

    /// The measurement characteristics it streams, in the order they are subscribed.
    public var measurements: [BluetoothUUID] {
        switch self {
        case .heartRate: [GATTNumbers.heartRateMeasurement]
        case .pulseOximeter: [GATTNumbers.plxContinuousMeasurement, GATTNumbers.plxSpotCheckMeasurement]
        case .thermometer: [GATTNumbers.temperatureMeasurement]
        }
    }

    /// The name on the command line and in stored records (`heart-rate`, `pulse-oximeter`, `thermometer`).
    public var description: String { rawValue }
}
