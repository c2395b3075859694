/// The bracelet's advertising payload: AD structures `[length][type][data]`, with the vendor service
/// data (AD type 0x16, 16-bit UUID 0xFFFF) that identifies a bracelet before connecting.
///
/// Service data after the UUID, 15 bytes: pairing state (1), serial number (8, ASCII), brand id (2),
/// hardware id (2), model id (2; 1 = V1, 2 = V2), multi-byte fields little-endian.
public struct BraceletAdvertisement: Sendable, Hashable {
    /// The 16-bit service-data UUID the bracelet advertises under.
    public static let serviceDataUUID: UInt16 = 0xFFFF

    /// Pairing state: 0 passkey 999999, 1 no passkey, 0xAA pairing mode with passkey, 0xAB pairing
    /// mode without passkey.
    public var pairingState: UInt8
    /// Serial number.
    public var serial: String
    /// Brand id.
    public var brandID: UInt16
    /// Hardware id.
    public var hardwareID: UInt16
    /// Model id as advertised; ``model`` interprets it.
    public var modelID: UInt16
    /// The local name, when the payload carries one (AD types 0x08 / 0x09).
    public var localName: String?

    /// The model the model id names, `nil` for an id this build does not know.
    public var model: DeviceModel? { modelID <= 0xFF ? DeviceModel(rawValue: UInt8(modelID)) : nil }

    /// Creates an advertisement.
    public init(pairingState: UInt8, serial: String, brandID: UInt16, hardwareID: UInt16, modelID: UInt16, localName: String?) {
        self.pairingState = pairingState
        self.serial = serial
        self.brandID = brandID
        self.hardwareID = hardwareID
        self.modelID = modelID
        self.localName = localName
    }

    /// Finds the bracelet service data in an advertising (or scan response) payload; `nil` when the
    /// payload belongs to some other device or is malformed.
    public init?(advertisingData data: [UInt8]) {
        var index = 0
        var name: String?
        var found: [UInt8]?
        while index < data.count {
            let length = Int(data[index])
            if length == 0 { break }
            guard index + 1 + length <= data.count else { return nil }
            let type = data[index + 1]
            let body = Array(data[(index + 2)..<(index + 1 + length)])
            if type == 0x08 || type == 0x09 {
                name = String(decoding: body, as: UTF8.self)
            } else if type == 0x16, body.count >= 2, UInt16(body[0]) | UInt16(body[1]) << 8 == BraceletAdvertisement.serviceDataUUID {
                found = Array(body.dropFirst(2))
            }
            index += 1 + length
        }
        guard let service = found, service.count >= 15 else { return nil }
        pairingState = service[0]
        serial = String(decoding: service[1..<9].prefix { $0 != 0 }, as: UTF8.self)
        brandID = service.readLittleEndian(at: 9)!
        hardwareID = service.readLittleEndian(at: 11)!
        modelID = service.readLittleEndian(at: 13)!
        localName = name
    }

    /// The advertising payload: flags (LE general discoverable, BR/EDR not supported), the service
    /// data, and the complete local name when set.
    public func encode() -> [UInt8] {
        var service: [UInt8] = [0x16, 0xFF, 0xFF, pairingState]
        var serialBytes = Array(serial.utf8.prefix(8))
        serialBytes += [UInt8](repeating: 0, count: 8 - serialBytes.count)
        service += serialBytes
        service.appendLittleEndian(brandID)
        service.appendLittleEndian(hardwareID)
        service.appendLittleEndian(modelID)
        var out: [UInt8] = [0x02, 0x01, 0x06, UInt8(service.count)] + service
        if let localName {
            let nameBytes = Array(localName.utf8.prefix(31 - out.count - 2))
            out += [UInt8(nameBytes.count + 1), 0x09] + nameBytes
        }
        return out
    }
}
