import BraceletDecoder
import BraceletProtocol
import BraceletTransport
import Foundation

/// Turns a standard sensor's measurements into the rows the store keeps for any device: one slot
/// per second that carried a value, and beats from the RR intervals. The rules (Definitions.md,
/// "Standard sensors"):
///
/// - **Time.** A value is stored at the second it arrived. Slots of a device have distinct starts,
///   so two values in one second share its slot when their fields differ, and otherwise the later
///   one takes the next free second (at most 2 s late); a value that finds none is dropped and
///   counted (``dropped``). A value with a complete device time stamp (clock set) more than a
///   minute before its arrival and at most 7 days old comes from the device's storage: it is stored
///   at its own time, in the wearer's zone.
/// - **Heart rate.** Rate, quality 4 (an ECG strap's beat detection; the quality threshold of the
///   summaries then counts it), wearing 4 with skin contact, 0 without ("sensor contact: no" is not
///   worn, and its rate is never counted), unknown (`nil`) when the strap does not report contact. Without contact a
///   rate of 0 is the strap's "no value" and stays missing. Energy expended (kJ since the strap's
///   reset) becomes the energy of its slot, in calories, from the difference to the previous
///   value; the first value after a connection or a reset gives none.
/// - **Beats.** Each RR interval ends a beat: beats follow each other by their intervals while the
///   chain stays within 2 s before and 0.5 s after the arrival of the notification that ends it;
///   otherwise (the first notification, a lost one, a link drop) the last beat of a notification is
///   placed at its arrival and the chain starts again with a beat that has no interval to the one
///   before (a gap), so HRV never differences across lost beats.
/// - **Oximetry.** SpO2 and its quality from the Measurement and Device and Sensor Status: 0 for an
///   invalid, unavailable, demonstration, test or calibration value or a sensor malfunction, 1 for
///   a questionable value or signal, 2 for an early estimate or an ongoing measurement, 4 validated
///   or fully qualified, 3 without a status; "sensor unconnected to user" is not worn. The pulse
///   rate is the slot's rate (same quality) unless the device also streams Heart Rate Measurement.
///   NaN and the other special values stay missing.
/// - **Temperature.** In °C (converted from °F); a finger or toe reading is skin temperature, any
///   other site (or none given) core temperature.
/// - **Battery.** The latest level read or notified goes into every slot.
public struct SensorRows: Sendable {
    /// Slots not taken yet, in start order.
    public private(set) var slots: [Slot] = []
    /// Beats not taken yet, in time order.
    public private(set) var beats: [Beat] = []
    /// Values dropped because no second within 2 s of their arrival was free.
    public private(set) var dropped = 0
    /// Measurements turned into rows.
    public private(set) var measurements = 0
    /// The latest battery level, percent.
    public var battery: Int?
    /// Arrival of the latest value, Unix milliseconds.
    public private(set) var lastSampleMs: Int64?

    /// Whether the device streams Heart Rate Measurement (an oximeter's pulse rate then is not the slot's rate).
    let hasHeartRate: Bool
    /// The wearer's zone, for device time stamps; `nil`: time stamps are not used.
    let timeZone: TimeZone?
    private var lastStart: Int64 = .min
    private var pendingIndex: [Int64: Int] = [:]
    private var beatClockMs: Int64?
    private var lastEnergyKJ: Int?

    /// Rows of a device that streams `profiles`, whose wearer lives in `timeZone`.
    public init(profiles: [StandardHealthProfile], timeZone: TimeZone?, battery: Int? = nil) {
        hasHeartRate = profiles.contains(.heartRate)
        self.timeZone = timeZone
        self.battery = battery
    }

    /// Hands over the rows made so far (and forgets them).
    public mutating func take() -> (slots: [Slot], beats: [Beat]) {
        defer {
            slots = []
            beats = []
            pendingIndex = [:]
        }
        return (slots, beats)
    }

    /// Puts back rows handed over by ``take()`` that could not be stored, ahead of any made since.
    public mutating func restore(_ taken: (slots: [Slot], beats: [Beat])) {
        slots = taken.slots + slots
        beats = taken.beats + beats
        reindex()
    }

    /// Adds one measurement.
    public mutating func add(_ sample: SensorSample) {
        let at = sample.receivedAtMilliseconds
        lastSampleMs = max(lastSampleMs ?? at, at)
        switch sample.measurement {
        case .battery(let level):
            battery = level
        case .heartRate(let m):
            measurements += 1
            addHeartRate(m, at: at)
        case .plxContinuous(let m):
            measurements += 1
            addOximetry(m.normal, m.measurementStatus, m.deviceAndSensorStatus, at: at)
        case .plxSpotCheck(let m):
            measurements += 1
            let at = m.deviceClockNotSet ? at : storedTime(m.timestamp, arrivedAt: at)
            addOximetry(m.reading, m.measurementStatus, m.deviceAndSensorStatus, at: at)
        case .temperature(let m):
            measurements += 1
            guard let celsius = m.celsius else { return }
            let skin = m.type?.isSkin ?? false
            place(at: storedTime(m.timestamp, arrivedAt: at), uses: skin ? [.skinTemp] : [.coreTemp]) { slot in
                if skin { slot.skinTempC = celsius } else { slot.coreTempC = celsius }
            }
        }
    }

    private mutating func addHeartRate(_ m: HeartRateMeasurement, at: Int64) {
        var energyCal: Int?
        if let kJ = m.energyExpendedKJ {
            if let previous = lastEnergyKJ, kJ >= previous { energyCal = Int((Double(kJ - previous) * 239.006).rounded()) }
            lastEnergyKJ = kJ
        }
        let contact = m.contactDetected
        place(at: at, uses: energyCal == nil ? [.bpm, .wearing] : [.bpm, .wearing, .energy]) { slot in
            slot.bpm = contact == false && m.bpm == 0 ? nil : m.bpm
            slot.bpmQuality = contact == false ? 0 : 4
            slot.wearing = contact.map { $0 ? 4 : 0 }
            slot.energyCal = energyCal
        }
        addBeats(m.rrMilliseconds, arrivedAt: at)
    }

    private mutating func addBeats(_ intervals: [Int], arrivedAt: Int64) {
        guard !intervals.isEmpty else { return }
        let span = Int64(intervals.reduce(0, +))
        // The last beat of a notification lies before its arrival, by up to a second and the
        // link's delay: the chain goes on while its next beats end between 2 s before the arrival
        // and half a second after it.
        var chained = false
        if let clock = beatClockMs, (-2_000...500).contains(clock + span - arrivedAt) { chained = true }
        var time = chained ? beatClockMs ?? 0 : arrivedAt - span
        for (i, rr) in intervals.enumerated() {
            time += Int64(rr)
            beats.append(Beat(timeMs: time, rrMs: chained || i > 0 ? rr : nil))
        }
        beatClockMs = time
    }

    private mutating func addOximetry(_ reading: SpO2PulseRate, _ status: PLXMeasurementStatus?,
                                      _ device: PLXDeviceAndSensorStatus?, at: Int64) {
        let quality = Self.quality(status, device)
        let unworn = device?.contains(.sensorUnconnectedToUser) == true
        let spo2 = reading.spo2.value.map { Int($0.rounded()) }
        let rate = hasHeartRate ? nil : reading.pulseRate.value.map { Int($0.rounded()) }
        var fields: SlotFields = [.spo2, .spo2Quality]
        if rate != nil { fields.formUnion([.bpm, .bpmQuality]) }
        if unworn { fields.insert(.wearing) }
        place(at: at, uses: fields) { slot in
            slot.spo2 = spo2
            slot.spo2Quality = spo2 == nil ? nil : quality
            if let rate {
                slot.bpm = rate
                slot.bpmQuality = quality
            }
            if unworn { slot.wearing = 0 }
        }
    }

    /// The quality 0...4 of an oximeter's value from its statuses (see the type's rules).
    package static func quality(_ status: PLXMeasurementStatus?, _ device: PLXDeviceAndSensorStatus?) -> Int {
        let unusable: PLXMeasurementStatus = [.invalidMeasurementDetected, .measurementUnavailable, .dataForDemonstration,
                                              .dataForTesting, .calibrationOngoing]
        let broken: PLXDeviceAndSensorStatus = [.equipmentMalfunctionDetected, .sensorMalfunctioning, .sensorDisconnected,
                                                .sensorUnconnectedToUser, .unknownSensorConnected, .sensorDisplaced]
        let doubtful: PLXDeviceAndSensorStatus = [.signalProcessingIrregularityDetected, .inadequateSignalDetected, .poorSignalDetected,
                                                  .lowPerfusionDetected, .erraticSignalDetected, .nonpulsatileSignalDetected,
                                                  .questionablePulseDetected, .sensorInterferenceDetected]
        if let status, !status.isDisjoint(with: unusable) { return 0 }
        if let device, !device.isDisjoint(with: broken) { return 0 }
        if status?.contains(.questionableMeasurementDetected) == true { return 1 }
        if let device, !device.isDisjoint(with: doubtful) { return 1 }
        if let status, !status.isDisjoint(with: [.earlyEstimatedData, .measurementOngoing]) { return 2 }
        if let device, device.contains(.signalAnalysisOngoing) { return 2 }
        if let status, !status.isDisjoint(with: [.validatedData, .fullyQualifiedData]) { return 4 }
        return 3
    }

    /// The time (Unix ms) a value is stored at: its arrival, or its device time stamp when that
    /// says it comes from the device's storage (see the type's rules).
    package func storedTime(_ stamp: SIGDateTime?, arrivedAt: Int64) -> Int64 {
        guard let timeZone, let local = stamp?.localSeconds else { return arrivedAt }
        let utc = ZonedTime.unixSeconds(ofLocal: local, in: timeZone)
        let age = arrivedAt / 1_000 - utc
        return age > 60 && age <= 7 * 86_400 ? utc * 1_000 : arrivedAt
    }

    /// Puts a value whose fields are `fields` into the slot of the second it arrived at (see the
    /// type's rules on time).
    private mutating func place(at ms: Int64, uses fields: SlotFields, _ fill: (inout Slot) -> Void) {
        let second = ms.floorDivided(by: 1_000).quotient
        for start in second...(second + 2) {
            if let i = pendingIndex[start] {
                guard Self.fields(of: slots[i]).isDisjoint(with: fields) else { continue }
                var merged = Slot(start: start, intervalSeconds: 1)
                fill(&merged)
                slots[i] = Self.merge(slots[i], merged)
                return
            }
            guard start > lastStart || ms < (lastSampleMs ?? ms) - 60_000 else { continue }
            var slot = Slot(start: start, intervalSeconds: 1)
            fill(&slot)
            slot.battery = battery
            pendingIndex[start] = slots.count
            slots.append(slot)
            if start > lastStart { lastStart = start } else { slots.sort { $0.start < $1.start }; reindex() }
            return
        }
        dropped += 1
    }

    private mutating func reindex() {
        pendingIndex = [:]
        for (i, s) in slots.enumerated() { pendingIndex[s.start] = i }
    }

    /// The fields `slot` carries.
    static func fields(of slot: Slot) -> SlotFields {
        var f: SlotFields = []
        if slot.bpm != nil || slot.bpmQuality != nil { f.formUnion([.bpm, .bpmQuality]) }
        if slot.spo2 != nil || slot.spo2Quality != nil { f.formUnion([.spo2, .spo2Quality]) }
        if slot.wearing != nil { f.insert(.wearing) }
        if slot.energyCal != nil { f.insert(.energy) }
        if slot.skinTempC != nil { f.insert(.skinTemp) }
        if slot.coreTempC != nil { f.insert(.coreTemp) }
        return f
    }

    /// `base` with the values of `other` where `base` has none.
    static func merge(_ base: Slot, _ other: Slot) -> Slot {
        var s = base
        s.bpm = s.bpm ?? other.bpm
        s.bpmQuality = s.bpmQuality ?? other.bpmQuality
        s.spo2 = s.spo2 ?? other.spo2
        s.spo2Quality = s.spo2Quality ?? other.spo2Quality
        s.wearing = s.wearing ?? other.wearing
        s.energyCal = s.energyCal ?? other.energyCal
        s.skinTempC = s.skinTempC ?? other.skinTempC
        s.coreTempC = s.coreTempC ?? other.coreTempC
        return s
    }
}
