import BraceletProtocol

/// One LE advertising report from an HCI LE Meta event (subevent 0x02): who advertised, how
/// strongly it was heard, and the payload.
public struct LEAdvertisingReport: Sendable, Hashable {
    /// Event type: 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    public var eventType: UInt8
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
    public init(eventType: UInt8, address: BluetoothAddress, addressType: LEAddressType, rssi: Int?, data: [UInt8]) {
        self.eventType = eventType
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.data = data
    }

    /// Decodes the reports in one HCI event packet as read from an HCI socket:
    /// `[0x04 packet type][0x3E event][length][0x02 subevent][count]` then per report
    /// `[event type][address type][address, 6][data length][data][RSSI i8]`.
    ///
    /// Returns no reports for other events. Throws ``LEAdvertisingReportError`` when a report runs
    /// past the end of the packet (with the offset where it did).
    public static func parse(hciEvent packet: [UInt8]) throws(LEAdvertisingReportError) -> [LEAdvertisingReport] {
        guard packet.count >= 5, packet[0] == 0x04, packet[1] == 0x3E, packet[3] == 0x02 else { return [] }
        let declared = Int(packet[2])
        guard packet.count >= 3 + declared else {
            throw .truncated(offset: packet.count, needed: 3 + declared)
        }
        let count = Int(packet[4])
        var reports: [LEAdvertisingReport] = []
        var i = 5
        for _ in 0..<count {
            guard i + 9 <= packet.count else { throw .truncated(offset: packet.count, needed: i + 9) }
            let eventType = packet[i]
            let addressType = packet[i + 1]
            let address = BluetoothAddress(wireBytes: Array(packet[(i + 2)..<(i + 8)]))
            let length = Int(packet[i + 8])
            let dataStart = i + 9
            guard dataStart + length + 1 <= packet.count, let address else {
                throw .truncated(offset: packet.count, needed: dataStart + length + 1)
            }
            let rawRSSI = Int8(bitPattern: packet[dataStart + length])
            reports.append(LEAdvertisingReport(eventType: eventType, address: address,
                                               addressType: LEAddressType(hciAddressType: addressType),
                                               rssi: rawRSSI == 127 ? nil : Int(rawRSSI),
                                               data: Array(packet[dataStart..<(dataStart + length)])))
            i = dataStart + length + 1
        }
        return reports
    }
}

/// An HCI advertising report that could not be decoded.
public enum LEAdvertisingReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The packet ended at `offset` but a report needed `needed` bytes.
    case truncated(offset: Int, needed: Int)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case let .truncated(offset, needed):
            "LE advertising report truncated: the HCI event ends at byte \(offset) but the report needs \(needed) bytes; "
                + "the report is skipped (if this repeats, check the adapter's firmware with btmon)"
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
