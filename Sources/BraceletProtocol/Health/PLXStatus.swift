/// The Measurement Status field of a PLX measurement (16 bits; bits 0-4 reserved): how far the
/// oximeter trusts the reading it sends.
public struct PLXMeasurementStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The measurement is still going on.
    public static let measurementOngoing = PLXMeasurementStatus(rawValue: 1 << 5)
    /// An early estimate.
    public static let earlyEstimatedData = PLXMeasurementStatus(rawValue: 1 << 6)
    /// Validated data.
    public static let validatedData = PLXMeasurementStatus(rawValue: 1 << 7)
    /// Fully qualified data.
    public static let fullyQualifiedData = PLXMeasurementStatus(rawValue: 1 << 8)
    /// Sent from the oximeter's storage (an earlier measurement).
    public static let dataFromMeasurementStorage = PLXMeasurementStatus(rawValue: 1 << 9)
    /// Not a patient's data: for demonstration.
    public static let dataForDemonstration = PLXMeasurementStatus(rawValue: 1 << 10)
    /// Not a patient's data: for testing.
    public static let dataForTesting = PLXMeasurementStatus(rawValue: 1 << 11)
    /// Calibration is going on.
    public static let calibrationOngoing = PLXMeasurementStatus(rawValue: 1 << 12)
    /// No measurement available.
    public static let measurementUnavailable = PLXMeasurementStatus(rawValue: 1 << 13)
    /// The measurement is questionable.
    public static let questionableMeasurementDetected = PLXMeasurementStatus(rawValue: 1 << 14)
    /// The measurement is invalid.
    public static let invalidMeasurementDetected = PLXMeasurementStatus(rawValue: 1 << 15)
}

/// The Device and Sensor Status field of a PLX measurement (24 bits; bits 16-23 reserved): what
/// the oximeter knows about its sensor and signal.
public struct PLXDeviceAndSensorStatus: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Extended display update ongoing.
    public static let extendedDisplayUpdateOngoing = PLXDeviceAndSensorStatus(rawValue: 1 << 0)
    /// Equipment malfunction detected.
    public static let equipmentMalfunctionDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 1)
    /// Signal processing irregularity detected.
    public static let signalProcessingIrregularityDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 2)
    /// Inadequate signal detected.
    public static let inadequateSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 3)
    /// Poor signal detected.
    public static let poorSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 4)
    /// Low perfusion detected.
    public static let lowPerfusionDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 5)
    /// Erratic signal detected.
    public static let erraticSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 6)
    /// Nonpulsatile signal detected.
    public static let nonpulsatileSignalDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 7)
    /// Questionable pulse detected.
    public static let questionablePulseDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 8)
    /// Signal analysis ongoing.
    public static let signalAnalysisOngoing = PLXDeviceAndSensorStatus(rawValue: 1 << 9)
    /// Sensor interference detected.
    public static let sensorInterferenceDetected = PLXDeviceAndSensorStatus(rawValue: 1 << 10)
    /// The sensor is not on the person.
    public static let sensorUnconnectedToUser = PLXDeviceAndSensorStatus(rawValue: 1 << 11)
    /// An unknown sensor is connected.
    public static let unknownSensorConnected = PLXDeviceAndSensorStatus(rawValue: 1 << 12)
    /// The sensor is displaced.
    public static let sensorDisplaced = PLXDeviceAndSensorStatus(rawValue: 1 << 13)
    /// The sensor is malfunctioning.
    public static let sensorMalfunctioning = PLXDeviceAndSensorStatus(rawValue: 1 << 14)
    /// The sensor is disconnected.
    public static let sensorDisconnected = PLXDeviceAndSensorStatus(rawValue: 1 << 15)
}

/// One SpO2 and pulse-rate pair of a PLX measurement: percent and beats per minute, as SFLOATs.
public struct SpO2PulseRate: Sendable, Hashable {
    /// Oxygen saturation, percent.
    public var spo2: MedicalFloat
    /// Pulse rate, beats per minute.
    public var pulseRate: MedicalFloat

    /// A pair.
    public init(spo2: MedicalFloat, pulseRate: MedicalFloat) {
        self.spo2 = spo2
        self.pulseRate = pulseRate
    }
}
