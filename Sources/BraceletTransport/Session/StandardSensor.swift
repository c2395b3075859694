import BraceletProtocol

/// What a standard health sensor (a chest strap, an oximeter, a thermometer: a device with one of
/// the SIG's health services and no bracelet service) says about itself. Every field is `nil`
/// when the sensor does not have the characteristic: nothing is guessed.
public struct StandardSensorInfo: Sendable, Hashable, CustomStringConvertible {
    /// Device Information Manufacturer Name (0x2A29).
    public var manufacturer: String?
    /// Device Information Model Number (0x2A24).
    public var model: String?
    /// Device Information Serial Number (0x2A25).
    public var serial: String?
    /// Device Information Firmware Revision (0x2A26).
    public var firmwareRevision: String?
    /// Body Sensor Location (0x2A38): 0 other, 1 chest, 2 wrist, 3 finger, 4 hand, 5 ear lobe, 6 foot.
    public var bodySensorLocation: UInt8?
    /// Battery Level (0x2A19), percent.
    public var batteryPercent: Int?
    /// The health profiles it streams measurements of, in ``StandardHealthProfile`` order.
    public var profiles: [StandardHealthProfile]

    /// Creates the description of a sensor.
    public init(manufacturer: String? = nil, model: String? = nil, serial: String? = nil, firmwareRevision: String? = nil,
                bodySensorLocation: UInt8? = nil, batteryPercent: Int? = nil, profiles: [StandardHealthProfile] = []) {
        self.manufacturer = manufacturer
        self.model = model
        self.serial = serial
        self.firmwareRevision = firmwareRevision
        self.bodySensorLocation = bodySensorLocation
        self.batteryPercent = batteryPercent
        self.profiles = profiles
    }

    /// The name the store keeps the sensor's data under: its serial number, or `address` (how it
    /// was reached) when it has none.
    public func identity(address: String) -> String { serial ?? address }

    /// Manufacturer and model, as far as known (`nil` when neither is).
    public var modelName: String? {
        let name = [manufacturer, model].compactMap { $0 }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }

    /// The Body Sensor Location's name (Heart Rate service specification), `nil` when absent.
    public var locationName: String? {
        guard let code = bodySensorLocation else { return nil }
        let names = ["other", "chest", "wrist", "finger", "hand", "ear lobe", "foot"]
        return Int(code) < names.count ? names[Int(code)] : "location \(code)"
    }

    /// Profiles, manufacturer, model, serial, location and battery, as far as known.
    public var description: String {
        var parts = [profiles.map(\.rawValue).joined(separator: "+")]
        parts.append(modelName ?? "(no Device Information)")
        if let serial { parts.append("serial \(serial)") }
        if let locationName { parts.append("worn on the \(locationName)") }
        if let batteryPercent { parts.append("battery \(batteryPercent) %") }
        return parts.joined(separator: ", ")
    }

    /// The measurement characteristics to subscribe to when `database` is a standard sensor's: each
    /// that notifies or indicates in its profile's service, when there is no bracelet service.
    /// Empty otherwise.
    public static func measurementCharacteristics(in database: GATTDatabase) -> [(StandardHealthProfile, GATTCharacteristic)] {
        guard database.characteristic(GATTNumbers.commandCharacteristic, in: GATTNumbers.braceletService) == nil else { return [] }
        var found: [(StandardHealthProfile, GATTCharacteristic)] = []
        for profile in StandardHealthProfile.allCases {
            for uuid in profile.measurements {
                if let c = database.characteristic(uuid, in: profile.service), c.canNotify || c.canIndicate {
                    found.append((profile, c))
                }
            }
        }
        return found
    }
}

/// One measurement a standard sensor sent, with the time it arrived.
public struct SensorSample: Sendable, Hashable {
    /// When the notification or indication arrived, Unix milliseconds (the session's clock).
    public var receivedAtMilliseconds: Int64
    /// What it carried.
    public var measurement: SensorMeasurement

    /// A sample.
    public init(receivedAtMilliseconds: Int64, measurement: SensorMeasurement) {
        self.receivedAtMilliseconds = receivedAtMilliseconds
        self.measurement = measurement
    }
}

extension BraceletSession {
    /// Listens to a standard health sensor: reads what it says about itself (Device Information,
    /// Body Sensor Location, Battery Level), subscribes to each of its measurements (and to its
    /// Battery Level when that notifies) and reports every value as it arrives until the listening
    /// time ends (``SessionConfiguration/sensorListenDuration``) or a stop request. A sensor holds
    /// no files, so there is nothing to transfer: the sync counts as completed.
    func listenToSensor(_ measurements: [(StandardHealthProfile, GATTCharacteristic)], gatt: GATTClient,
                        database: GATTDatabase) throws(SessionError) {
        func read(_ uuid: BluetoothUUID) throws(SessionError) -> [UInt8]? {
            guard let c = database.characteristic(uuid), c.properties & 0x02 != 0 else { return nil }
            return try gattStep { () throws(GATTError) in try gatt.read(handle: c.valueHandle) }
        }
        func text(_ uuid: BluetoothUUID, _ name: String) throws(SessionError) -> String? {
            guard let value = try read(uuid) else { return nil }
            do { return try StandardCharacteristicText.string(value, characteristic: name) } catch {
                onEvent(.diagnostic("\(error)"))
                return nil
            }
        }
        var info = StandardSensorInfo(manufacturer: try text(GATTNumbers.manufacturerName, "Manufacturer Name (0x2A29)"),
                                      model: try text(GATTNumbers.modelNumber, "Model Number (0x2A24)"),
                                      serial: try text(GATTNumbers.serialNumber, "Serial Number (0x2A25)"),
                                      firmwareRevision: try text(GATTNumbers.firmwareRevision, "Firmware Revision (0x2A26)"),
                                      bodySensorLocation: try read(GATTNumbers.bodySensorLocation)?.first,
                                      profiles: StandardHealthProfile.allCases.filter { p in measurements.contains { $0.0 == p } })
        if let battery = try read(GATTNumbers.batteryLevel) {
            do { info.batteryPercent = try StandardCharacteristicText.batteryLevel(battery) } catch { onEvent(.diagnostic("\(error)")) }
        }
        report.sensor = info
        report.serial = info.identity(address: connector.label)
        onEvent(.standardSensor(info))
        var byHandle: [UInt16: BluetoothUUID] = [:]
        for (_, c) in measurements {
            // A characteristic that both notifies and indicates is asked for notifications (no
            // confirmation round trip per value).
            try gattStep { () throws(GATTError) in try gatt.enableNotifications(c, indications: !c.canNotify) }
            byHandle[c.valueHandle] = measurementUUID(c.uuid)
        }
        if let battery = database.characteristic(GATTNumbers.batteryLevel, in: GATTNumbers.batteryService), battery.canNotify {
            // Battery notifications are a convenience: a sensor that refuses them still streams.
            do { try gatt.enableNotifications(battery); byHandle[battery.valueHandle] = GATTNumbers.batteryLevel } catch {
                if let failure = linkOrSecurityError(error), case .link = failure { throw failure }
                onEvent(.diagnostic("the sensor refused Battery Level notifications (\(error)); its level is read at each connection"))
            }
        }
        report.syncCompleted = true
        let duration = configuration.sensorListenDuration ?? configuration.liveDuration
        let deadline = ContinuousClock.now + duration
        while !configuration.shouldStop() {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return }
            let n: ATTValueNotification?
            do { n = try gatt.bearer.nextNotification(timeout: min(remaining, .milliseconds(250))) } catch { throw .link(error.description) }
            guard let n else { continue }
            guard let uuid = byHandle[n.handle] else {
                if !database.isKnownValueHandle(n.handle) { onEvent(.unknownHandle(n.handle)) }
                continue
            }
            do {
                guard let measurement = try SensorMeasurement.decode(n.value, characteristic: uuid) else { continue }
                report.sensorSamples += 1
                onEvent(.sensorSample(SensorSample(receivedAtMilliseconds: configuration.nowMilliseconds(), measurement: measurement)))
            } catch {
                onEvent(.diagnostic("ignored a \(uuid) value that does not decode (\(error)): \(hexString(n.value))"))
            }
        }
    }

    /// The 16-bit form of a measurement characteristic's UUID (a device may declare it in 128 bits).
    private func measurementUUID(_ uuid: BluetoothUUID) -> BluetoothUUID {
        let known = StandardHealthProfile.allCases.flatMap(\.measurements) + [GATTNumbers.batteryLevel]
        return known.first { $0.expanded128 == uuid.expanded128 } ?? uuid
    }
}
