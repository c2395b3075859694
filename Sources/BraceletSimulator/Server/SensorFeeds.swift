import BraceletDecoder
import BraceletProtocol
import Synchronization

/// A value a simulated device pushes on its own, every `everySeconds` seconds while the client is
/// subscribed to `handle`: a notification, or an indication when `indicates`.
public struct LiveFeed: Sendable {
    /// The characteristic's value handle.
    public var handle: UInt16
    /// Whether it goes out as an indication (else a notification).
    public var indicates: Bool
    /// How often, seconds (1: every second).
    public var everySeconds: Int
    /// The value for the second ending at the given Unix time; `nil`: nothing this time.
    public var value: @Sendable (Int64) -> [UInt8]?

    /// A feed.
    public init(handle: UInt16, indicates: Bool, everySeconds: Int, value: @escaping @Sendable (Int64) -> [UInt8]?) {
        self.handle = handle
        self.indicates = indicates
        self.everySeconds = max(1, everySeconds)
        self.value = value
    }
}

/// The measurements a simulated standard sensor streams, all from the physiological model (a V2
/// model, which carries SpO2 and core temperature): the same person the bracelet simulates.
///
/// - Heart rate: once a second, the model's beats of the second before (rate and RR intervals,
///   contact detected); off the body, a strap's "no contact" value (contact not detected, rate 0,
///   no RR), as straps send it.
/// - Pulse oximeter: a continuous measurement once a second (SpO2 of the model's slot, pulse rate
///   of the second's beats, Measurement Status "validated", or "questionable" when the slot's SpO2
///   quality is below 2); off the finger NaN for both with "sensor unconnected to user". A
///   spot-check every ``spotCheckSeconds`` with its time stamp.
/// - Thermometer: a reading (core temperature of the model's slot, 0.1 °C, tympanum, time stamp)
///   every ``thermometerSeconds`` while worn.
public enum SensorFeeds {
    /// Seconds between two spot-checks of the simulated oximeter.
    public static let spotCheckSeconds = 30
    /// Seconds between two readings of the simulated thermometer.
    public static let thermometerSeconds = 5

    /// The feeds of `profile`'s sensor served by `server`, from `model`.
    public static func feeds(for profile: StandardHealthProfile, server: SimulatedGATTServer, model: PhysiologyModel) -> [LiveFeed] {
        let source = Source(model: model)
        switch profile {
        case .heartRate:
            return [LiveFeed(handle: server.handles.heartRate, indicates: false, everySeconds: 1) { t in
                if let m = source.heartRate(endingAt: t) { return m.encode() }
                return source.isWorn(at: t) ? nil
                    : HeartRateMeasurement(bpm: 0, contactDetected: false, energyExpendedKJ: nil, rrIntervals1024: []).encode()
            }]
        case .pulseOximeter:
            return [
                LiveFeed(handle: server.handles.plx, indicates: false, everySeconds: 1) { t in
                    let (reading, status, device) = source.oximetry(at: t)
                    return PLXContinuousMeasurement(normal: reading, measurementStatus: status, deviceAndSensorStatus: device).encode()
                },
                LiveFeed(handle: server.handles.plxSpotCheck, indicates: true, everySeconds: spotCheckSeconds) { t in
                    let (reading, status, device) = source.oximetry(at: t)
                    return PLXSpotCheckMeasurement(reading: reading, timestamp: source.timestamp(t), measurementStatus: status,
                                                   deviceAndSensorStatus: device).encode()
                },
            ]
        case .thermometer:
            return [LiveFeed(handle: server.handles.temperature, indicates: true, everySeconds: thermometerSeconds) { t in
                guard let celsius = source.slot(at: t)?.coreTempC else { return nil }
                return TemperatureMeasurement(value: MedicalFloat(celsius, fractionDigits: 1), timestamp: source.timestamp(t),
                                              type: .tympanum).encode()
            }]
        }
    }

    /// The model, read at the times the feeds ask for (past its end: the same time of day of its
    /// last day, as ``LiveHeartRateSource`` does).
    final class Source: Sendable {
        let model: PhysiologyModel
        private let live: Mutex<LiveHeartRateSource>

        init(model: PhysiologyModel) {
            self.model = model
            live = Mutex(LiveHeartRateSource(model: model))
        }

        func heartRate(endingAt t: Int64) -> HeartRateMeasurement? {
            live.withLock { $0.measurement(endingAt: t) }
        }

        func isWorn(at t: Int64) -> Bool {
            model.isWorn(at: live.withLock { $0.modelTime(for: t) })
        }

        /// The model's slot holding `t`; `nil` off the body.
        func slot(at t: Int64) -> Slot? {
            let modelTime = live.withLock { $0.modelTime(for: t) }
            let index = (modelTime - model.start) / Int64(model.slotIntervalSeconds)
            guard let slot = model.slot(at: Int(index)), slot.wearing != 0 else { return nil }
            return slot
        }

        func oximetry(at t: Int64) -> (SpO2PulseRate, PLXMeasurementStatus, PLXDeviceAndSensorStatus) {
            guard let slot = slot(at: t), let spo2 = slot.spo2 else {
                return (SpO2PulseRate(spo2: .notANumber, pulseRate: .notANumber), [], .sensorUnconnectedToUser)
            }
            let rate = heartRate(endingAt: t)?.bpm ?? slot.bpm
            let status: PLXMeasurementStatus = (slot.spo2Quality ?? 0) >= 2 ? .validatedData : .questionableMeasurementDetected
            return (SpO2PulseRate(spo2: .number(mantissa: Int32(spo2), exponent: 0),
                                  pulseRate: rate.map { .number(mantissa: Int32($0), exponent: 0) } ?? .notANumber), status, [])
        }

        /// The wearer's local date and time at `t`, as a Date Time.
        func timestamp(_ t: Int64) -> SIGDateTime {
            SIGDateTime(localSeconds: t + Int64(model.utcOffsetSeconds(at: t)))
        }
    }
}
