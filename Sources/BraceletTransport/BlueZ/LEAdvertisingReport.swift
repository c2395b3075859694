import BraceletProtocol

/// One device heard while discovering: a Device Found event of the kernel's management interface
/// (BlueZ doc/mgmt-api.txt): who advertised, how strongly it was heard, and the payload (the
/// advertisement and, when active scanning got one, the scan response).
public struct LEAdvertisingReport: Sendable, Hashable {
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// Its address type.
    public var addressType: LEAddressType
    /// Received signal strength in dBm; `nil` when the controller reports 127 (not available).
    public var rssi: Int?
    /// The AD structures as received.
    public var data: [UInt8]

    /// The bracelet service data in this report, `nil` for other devices.
    public var bracelet: BraceletAdvertisement? { BraceletAdvertisement(advertisingData: data) }

    /// Creates a report.
    public init(address: BluetoothAddress, addressType: LEAddressType, rssi: Int?, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.data = data
    }

    /// Decodes the parameters of a Device Found event: `[address, 6][address type: 0 BR/EDR,
    /// 1 LE public, 2 LE random][RSSI i8][flags u32][data length u16][data]`.
    ///
    /// Returns `nil` for a BR/EDR device. Throws ``LEAdvertisingReportError`` when the data runs past
    /// the end of the event (with the offset where it did).
    public static func parse(deviceFound parameters: [UInt8]) throws(LEAdvertisingReportError) -> LEAdvertisingReport? {
        guard parameters.count >= 14, let address = BluetoothAddress(wireBytes: Array(parameters[0..<6])),
              let length: UInt16 = parameters.readLittleEndian(at: 12) else {
            throw .truncated(offset: parameters.count, needed: 14)
        }
        guard parameters.count >= 14 + Int(length) else { throw .truncated(offset: parameters.count, needed: 14 + Int(length)) }
        let type: LEAddressType
        switch parameters[6] {
        case 1: type = .public
        case 2: type = .random
        default: return nil
        }
        let rawRSSI = Int8(bitPattern: parameters[7])
        return LEAdvertisingReport(address: address, addressType: type, rssi: rawRSSI == 127 ? nil : Int(rawRSSI),
                                   data: Array(parameters[14..<(14 + Int(length))]))
    }
}

/// A Device Found event that could not be decoded.
public enum LEAdvertisingReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The packet ended at `offset` but a report needed `needed` bytes.
    case truncated(offset: Int, needed: Int)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case let .truncated(offset, needed):
            "Device Found event truncated: it ends at byte \(offset) but its report needs \(needed) bytes; "
                + "the report is skipped (if this repeats, look at the adapter's traffic with btmon)"
        }
    }
}

/// A bracelet heard while scanning: its latest advertisement, address and signal strength.
public struct DiscoveredBracelet: Sendable, Hashable {
    /// The bracelet's address.
    public var address: BluetoothAddress
    /// Its address type (needed to connect).
    public var addressType: LEAddressType
    /// Strongest RSSI heard, dBm; `nil` when the controller never reported one.
    public var rssi: Int?
    /// The decoded service data (pairing state, serial, model).
    public var advertisement: BraceletAdvertisement
    /// The local name from the advertisement or the scan response.
    public var name: String?

    /// Creates an entry.
    public init(address: BluetoothAddress, addressType: LEAddressType, rssi: Int?, advertisement: BraceletAdvertisement, name: String?) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.advertisement = advertisement
        self.name = name
    }
}
