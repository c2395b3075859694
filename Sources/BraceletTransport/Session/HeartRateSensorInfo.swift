import BraceletProtocol

/// What a standard heart-rate sensor (a chest strap, an arm band: any device with the Heart Rate
/// service 0x180D and no bracelet service) says about itself. Every field is `nil` when the sensor
/// does not have the characteristic: nothing is guessed.
public struct HeartRateSensorInfo: Sendable, Hashable, CustomStringConvertible {
    /// Device Information Manufacturer Name (0x2A29).
    public var manufacturer: String?
    /// Device Information Model Number (0x2A24).
    public var model: String?
    /// Body Sensor Location (0x2A38): 0 other, 1 chest, 2 wrist, 3 finger, 4 hand, 5 ear lobe, 6 foot.
    public var bodySensorLocation: UInt8?
    /// Battery Level (0x2A19), percent.
    public var batteryPercent: Int?

    /// Creates the description of a sensor.
    public init(manufacturer: String? = nil, model: String? = nil, bodySensorLocation: UInt8? = nil, batteryPercent: Int? = nil) {
        self.manufacturer = manufacturer
        self.model = model
        self.bodySensorLocation = bodySensorLocation
        self.batteryPercent = batteryPercent
    }

    /// The Body Sensor Location's name (Heart Rate service specification), `nil` when absent.
    public var locationName: String? {
        guard let code = bodySensorLocation else { return nil }
        let names = ["other", "chest", "wrist", "finger", "hand", "ear lobe", "foot"]
        return Int(code) < names.count ? names[Int(code)] : "location \(code)"
    }

    /// Manufacturer, model, location and battery, as far as known.
    public var description: String {
        var parts: [String] = []
        let name = [manufacturer, model].compactMap { $0 }.joined(separator: " ")
        parts.append(name.isEmpty ? "(no Device Information)" : name)
        if let locationName { parts.append("worn on the \(locationName)") }
        if let batteryPercent { parts.append("battery \(batteryPercent) %") }
        return parts.joined(separator: ", ")
    }

    /// The Heart Rate Measurement characteristic to listen to when `database` is a heart-rate sensor's:
    /// it has one (notifying, in the Heart Rate service) and no bracelet service. `nil` otherwise.
    public static func measurementCharacteristic(in database: GATTDatabase) -> GATTCharacteristic? {
        guard database.characteristic(GATTNumbers.commandCharacteristic, in: GATTNumbers.braceletService) == nil,
              let measurement = database.characteristic(GATTNumbers.heartRateMeasurement, in: GATTNumbers.heartRateService),
              measurement.canNotify else { return nil }
        return measurement
    }
}

extension BraceletSession {
    /// Listens to a standard heart-rate sensor: reads what it says about itself, subscribes to its
    /// Heart Rate Measurement and reports each sample until the live duration ends or a stop request.
    /// A sensor holds no files, so there is nothing to transfer: the sync counts as completed.
    func listenToSensor(_ measurement: GATTCharacteristic, gatt: GATTClient, database: GATTDatabase) throws(SessionError) {
        func read(_ uuid: BluetoothUUID) throws(SessionError) -> [UInt8]? {
            guard let c = database.characteristic(uuid), c.properties & 0x02 != 0 else { return nil }
            return try gattStep { () throws(GATTError) in try gatt.read(handle: c.valueHandle) }
        }
        func text(_ uuid: BluetoothUUID) throws(SessionError) -> String? {
            try read(uuid).map { String(decoding: $0, as: UTF8.self).filter { $0 != "\0" } }
        }
        let info = HeartRateSensorInfo(manufacturer: try text(GATTNumbers.manufacturerName), model: try text(GATTNumbers.modelNumber),
                                       bodySensorLocation: try read(GATTNumbers.bodySensorLocation)?.first,
                                       batteryPercent: try read(GATTNumbers.batteryLevel)?.first.map(Int.init))
        report.sensor = info
        onEvent(.heartRateSensor(info))
        try gattStep { () throws(GATTError) in try gatt.enableNotifications(measurement) }
        report.syncCompleted = true
        let deadline = ContinuousClock.now + configuration.liveDuration
        while !configuration.shouldStop() {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return }
            let n: ATTValueNotification?
            do { n = try gatt.bearer.nextNotification(timeout: min(remaining, .milliseconds(250))) } catch { throw .link(error.description) }
            guard let n else { continue }
            if n.handle == measurement.valueHandle {
                do {
                    let m = try HeartRateMeasurement(value: n.value)
                    report.heartRateNotifications += 1
                    onEvent(.heartRate(m))
                } catch {
                    onEvent(.diagnostic("ignored a Heart Rate Measurement that does not decode (\(error)): \(n.value.count) bytes"))
                }
            } else if !database.isKnownValueHandle(n.handle) {
                onEvent(.unknownHandle(n.handle))
            }
        }
    }
}
