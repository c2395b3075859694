import BraceletDecoder
import BraceletProtocol
import BraceletTransport

/// What `bracelet simulate --profile` serves.
public enum SimulatorProfile: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The V1/V2 bracelet: vendor service with the file-transfer protocol, plus the standard services.
    case bracelet
    /// A plain SIG heart-rate sensor (a chest strap): Heart Rate, Device Information and Battery
    /// services only, no bracelet service and no files.
    case heartRate = "heart-rate"
    /// A plain SIG pulse oximeter: Pulse Oximeter (continuous and spot-check measurements), Device
    /// Information and Battery.
    case pulseOximeter = "pulse-oximeter"
    /// A plain SIG thermometer: Health Thermometer (temperature measurements by indication), Device
    /// Information and Battery.
    case thermometer

    /// The standard health profile a sensor serves; `nil` for the bracelet.
    public var standard: StandardHealthProfile? {
        switch self {
        case .bracelet: nil
        case .heartRate: .heartRate
        case .pulseOximeter: .pulseOximeter
        case .thermometer: .thermometer
        }
    }

    /// The name on the command line.
    public var description: String { rawValue }
}

extension StandardHealthProfile {
    /// The simulated sensor's name (Generic Access Device Name and scan response).
    public var simulatedName: String {
        switch self {
        case .heartRate: "HR Sensor SIM"
        case .pulseOximeter: "Oximeter SIM"
        case .thermometer: "Thermometer SIM"
        }
    }

    /// The simulated sensor's Device Information Model Number.
    public var simulatedModel: String {
        switch self {
        case .heartRate: "HRS-SIM"
        case .pulseOximeter: "PLX-SIM"
        case .thermometer: "HTS-SIM"
        }
    }

    /// The simulated sensor's default Serial Number.
    public var simulatedSerial: String {
        switch self {
        case .heartRate: "HRSIM001"
        case .pulseOximeter: "PLXSIM01"
        case .thermometer: "HTSIM001"
        }
    }
}

extension SimulatedGATTServer {
    /// A standard health sensor as such devices present themselves, driven by `firmware`'s
    /// physiological model: Generic Access (device name), Device Information (manufacturer, model,
    /// serial unless `serial` is `nil`, firmware revision), the profile's service and Battery
    /// (Battery Level, read and notify). It has no bracelet service, so a client finds no files;
    /// the measurements come from ``SimulatorServer``'s feeds (``SensorFeeds``).
    ///
    /// - Heart Rate: Heart Rate Measurement (notify) and Body Sensor Location (chest).
    /// - Pulse Oximeter: PLX Continuous Measurement (notify), PLX Spot-Check Measurement (indicate).
    /// - Health Thermometer: Temperature Measurement (indicate).
    public init(sensor profile: StandardHealthProfile, for firmware: SimulatedFirmware, serial: String?) {
        self.init(firmware: firmware)
        var table = TableBuilder()
        table.service(BluetoothUUID(0x1800)) { t in
            _ = t.characteristic(BluetoothUUID(0x2A00), properties: 0x02, value: Array(profile.simulatedName.utf8))
        }
        table.service(BluetoothUUID(0x1801)) { _ in }
        table.service(GATTNumbers.deviceInformationService) { t in
            _ = t.characteristic(GATTNumbers.manufacturerName, properties: 0x02, value: Array("Bracelet Labs".utf8))
            _ = t.characteristic(GATTNumbers.modelNumber, properties: 0x02, value: Array(profile.simulatedModel.utf8))
            if let serial { _ = t.characteristic(GATTNumbers.serialNumber, properties: 0x02, value: Array(serial.utf8)) }
            _ = t.characteristic(GATTNumbers.firmwareRevision, properties: 0x02, value: Array("1.0".utf8))
        }
        var h = Handles()
        table.service(profile.service) { t in
            switch profile {
            case .heartRate:
                h.heartRate = t.characteristic(GATTNumbers.heartRateMeasurement, properties: 0x10, value: [], cccd: &h.cccd)
                _ = t.characteristic(GATTNumbers.bodySensorLocation, properties: 0x02, value: [HeartRateSensorAdvertisement.chest])
            case .pulseOximeter:
                h.plxSpotCheck = t.characteristic(GATTNumbers.plxSpotCheckMeasurement, properties: 0x20, value: [], cccd: &h.cccd)
                h.plx = t.characteristic(GATTNumbers.plxContinuousMeasurement, properties: 0x10, value: [], cccd: &h.cccd)
            case .thermometer:
                h.temperature = t.characteristic(GATTNumbers.temperatureMeasurement, properties: 0x20, value: [], cccd: &h.cccd)
            }
        }
        table.service(GATTNumbers.batteryService) { t in
            h.battery = t.characteristic(GATTNumbers.batteryLevel, properties: 0x12, value: [80], cccd: &h.cccd)
        }
        attributes = table.attributes
        handles = h
    }

    /// The value handles of the health measurements this server streams.
    public var measurementHandles: [UInt16] {
        [handles.heartRate, handles.plx, handles.plxSpotCheck, handles.temperature].filter { $0 != 0 }
    }
}

/// What a simulated standard sensor advertises: connectable, general discoverable, the 16-bit UUIDs
/// of its health service and of Battery (as such sensors do, so a scanner filtering on the service
/// finds it), and its name in the scan response.
public enum HeartRateSensorAdvertisement {
    /// The heart-rate sensor's name (Generic Access Device Name and scan response).
    public static let localName = StandardHealthProfile.heartRate.simulatedName
    /// Body Sensor Location value for a chest strap.
    public static let chest: UInt8 = 0x01

    /// Flags (LE General Discoverable, BR/EDR not supported) and the complete list of 16-bit
    /// service UUIDs: 0x180D, 0x180F.
    public static let advertisingData: [UInt8] = advertisingData(for: .heartRate)

    /// The scan response: the complete local name.
    public static var scanResponse: [UInt8] { BraceletAdvertisement.scanResponse(localName: localName) }

    /// Flags and the complete list of 16-bit service UUIDs: the profile's service, then 0x180F.
    public static func advertisingData(for profile: StandardHealthProfile) -> [UInt8] {
        guard case .uuid16(let service) = profile.service else { return [] }
        return [0x02, 0x01, 0x06, 0x05, 0x03, UInt8(service & 0xFF), UInt8(service >> 8), 0x0F, 0x18]
    }

    /// The scan response of `profile`'s sensor: its complete local name.
    public static func scanResponse(for profile: StandardHealthProfile) -> [UInt8] {
        BraceletAdvertisement.scanResponse(localName: profile.simulatedName)
    }
}

/// What a simulated heart-rate sensor requires before a client may subscribe to its measurements
/// (write the Heart Rate Measurement's CCCD): nothing, as most straps, or an encrypted or an
/// authenticated link, as straps that keep their wearer's data to a paired phone do.
public enum StrapSecurity: String, Sendable, Hashable, CaseIterable {
    /// Anyone may subscribe.
    case none
    /// An encrypted link (Just Works); on a weaker link the CCCD write is answered with 0x0F.
    case encrypted
    /// An encrypted and authenticated link (passkey entry); on a weaker link the answer is 0x05.
    case authenticated

    /// The level the measurement's CCCD requires; `nil` for none.
    public var requiredLevel: LESecurityLevel? {
        switch self {
        case .none: nil
        case .encrypted: .medium
        case .authenticated: .high
        }
    }

    /// How the strap pairs when asked (its IO capability, bonding); `nil` when it needs no pairing.
    public var pairing: SimulatedPairing? {
        switch self {
        case .none: nil
        case .encrypted: .justWorks
        case .authenticated: .passkey
        }
    }
}

extension SimulatedGATTServer {
    /// The answer to `pdu` instead of executing it when it writes the CCCD of a health
    /// measurement (a strap's Heart Rate Measurement, an oximeter's or a thermometer's) on a link
    /// below `required`: an Error Response (0x0F Insufficient Encryption, or 0x05 Insufficient
    /// Authentication when authentication is required) for a Write Request, nothing for a Write
    /// Command. `nil` when it may be executed. The rest of the table stays open, as on a sensor
    /// whose measurements alone are protected.
    public func measurementRefusal(for pdu: ATTPDU, link: LinkSecurity?, required: LESecurityLevel?) -> [ATTPDU]? {
        guard let required else { return nil }
        let protected = Set(measurementHandles.compactMap { handles.cccd[$0] })
        switch pdu {
        case .writeRequest(let handle, _) where protected.contains(handle):
            guard let code = BraceletSecurity.insufficiency(link: link, required: required) else { return nil }
            return [.errorResponse(requestOpcode: .writeRequest, handle: handle, code: code)]
        case .writeCommand(let handle, _) where protected.contains(handle):
            return BraceletSecurity.insufficiency(link: link, required: required) == nil ? nil : []
        default:
            return nil
        }
    }
}
