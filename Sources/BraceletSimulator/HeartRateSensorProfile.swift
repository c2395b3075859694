import BraceletProtocol
import BraceletTransport

/// What `bracelet simulate --profile` serves.
public enum SimulatorProfile: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The V1/V2 bracelet: vendor service with the file-transfer protocol, plus the standard services.
    case bracelet
    /// A plain SIG heart-rate sensor (a chest strap): Heart Rate, Device Information and Battery
    /// services only, no bracelet service and no files.
    case heartRate = "heart-rate"

    /// The name on the command line.
    public var description: String { rawValue }
}

extension SimulatedGATTServer {
    /// A standard heart-rate sensor as a chest strap presents itself, driven by `firmware`'s
    /// physiological model: Generic Access (device name), Device Information (manufacturer, model,
    /// firmware revision), Heart Rate (Heart Rate Measurement, notify; Body Sensor Location: chest)
    /// and Battery (Battery Level, read and notify). It has no bracelet service, so a client finds no
    /// files; the live Heart Rate notifications come from ``SimulatorServer`` exactly as for a bracelet.
    public init(heartRateSensorFor firmware: SimulatedFirmware) {
        self.init(firmware: firmware)
        var table = TableBuilder()
        table.service(BluetoothUUID(0x1800)) { t in
            _ = t.characteristic(BluetoothUUID(0x2A00), properties: 0x02, value: Array(HeartRateSensorAdvertisement.localName.utf8))
        }
        table.service(BluetoothUUID(0x1801)) { _ in }
        table.service(GATTNumbers.deviceInformationService) { t in
            _ = t.characteristic(GATTNumbers.manufacturerName, properties: 0x02, value: Array("Bracelet Labs".utf8))
            _ = t.characteristic(GATTNumbers.modelNumber, properties: 0x02, value: Array("HRS-SIM".utf8))
            _ = t.characteristic(GATTNumbers.firmwareRevision, properties: 0x02, value: Array("1.0".utf8))
        }
        var h = Handles()
        table.service(GATTNumbers.heartRateService) { t in
            h.heartRate = t.characteristic(GATTNumbers.heartRateMeasurement, properties: 0x10, value: [], cccd: &h.cccd)
            _ = t.characteristic(GATTNumbers.bodySensorLocation, properties: 0x02, value: [HeartRateSensorAdvertisement.chest])
        }
        table.service(GATTNumbers.batteryService) { t in
            h.battery = t.characteristic(GATTNumbers.batteryLevel, properties: 0x12, value: [80], cccd: &h.cccd)
        }
        attributes = table.attributes
        handles = h
    }
}

/// What the simulated heart-rate sensor advertises: connectable, general discoverable, the 16-bit
/// UUIDs of its Heart Rate and Battery services (as straps do, so a scanner filtering on 0x180D
/// finds it), and its name in the scan response.
public enum HeartRateSensorAdvertisement {
    /// The sensor's name (Generic Access Device Name and scan response).
    public static let localName = "HR Sensor SIM"
    /// Body Sensor Location value for a chest strap.
    public static let chest: UInt8 = 0x01

    /// Flags (LE General Discoverable, BR/EDR not supported) and the complete list of 16-bit
    /// service UUIDs: 0x180D, 0x180F.
    public static let advertisingData: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18]

    /// The scan response: the complete local name.
    public static var scanResponse: [UInt8] { BraceletAdvertisement.scanResponse(localName: localName) }
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
    /// The answer to `pdu` instead of executing it when it writes the Heart Rate Measurement's CCCD
    /// on a link below `required`: an Error Response (0x0F Insufficient Encryption, or 0x05
    /// Insufficient Authentication when authentication is required) for a Write Request, nothing
    /// for a Write Command. `nil` when it may be executed. The rest of the table stays open, as on
    /// a strap whose measurements alone are protected.
    public func measurementRefusal(for pdu: ATTPDU, link: LinkSecurity?, required: LESecurityLevel?) -> [ATTPDU]? {
        guard let required, let cccd = handles.cccd[handles.heartRate] else { return nil }
        switch pdu {
        case .writeRequest(let handle, _) where handle == cccd:
            guard let code = BraceletSecurity.insufficiency(link: link, required: required) else { return nil }
            return [.errorResponse(requestOpcode: .writeRequest, handle: handle, code: code)]
        case .writeCommand(let handle, _) where handle == cccd:
            return BraceletSecurity.insufficiency(link: link, required: required) == nil ? nil : []
        default:
            return nil
        }
    }
}
