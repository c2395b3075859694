import BraceletProtocol
import BraceletTransport
import Glibc
import Testing

@Suite("BlueZ layer")
struct BlueZTests {
    @Test func addressRoundTripsAndKeepsWireOrder() throws {
        let address = try #require(BluetoothAddress("c0:ff:ee:00:11:22"))
        #expect(address.wireBytes == [0x22, 0x11, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(address.description == "C0:FF:EE:00:11:22")
        #expect(BluetoothAddress("C0:FF:EE:00:11") == nil)
        #expect(BluetoothAddress("C0:FF:EE:00:11:2G") == nil)
        #expect(BluetoothAddress("C0:FF:EE:00:11:222") == nil)
    }

    @Test func advertisingReportCarriesBraceletServiceData() throws {
        let advertisement = BraceletAdvertisement(pairingState: 0x01, serial: "V2A00042", brandID: 7, hardwareID: 3,
                                                  modelID: 2, localName: "Bracelet V2")
        let data = advertisement.encode()
        // LE Meta event, one ADV_IND report from random address C0:FF:EE:00:11:22 at -61 dBm.
        var report: [UInt8] = [0x00, 0x01, 0x22, 0x11, 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)] + data + [UInt8(bitPattern: -61)]
        report.insert(0x01, at: 0)  // number of reports
        let packet: [UInt8] = [0x04, 0x3E, UInt8(report.count + 1), 0x02] + report
        let reports = try LEAdvertisingReport.parse(hciEvent: packet)
        #expect(reports.count == 1)
        let first = try #require(reports.first)
        #expect(first.address.description == "C0:FF:EE:00:11:22")
        #expect(first.addressType == .random)
        #expect(first.rssi == -61)
        #expect(first.bracelet?.serial == "V2A00042")
        #expect(first.bracelet?.model == .v2)
        #expect(first.bracelet?.pairingState == 0x01)
        // Flags (3) + service data (19) leave 31 - 22 - 2 = 7 name bytes in one advertisement.
        #expect(first.bracelet?.localName == "Bracele")
    }

    @Test func reportWithoutRSSIAndOtherDevicesAreKeptApart() throws {
        // Public address, payload = flags only, RSSI 127 = not available.
        let packet: [UInt8] = [0x04, 0x3E, 0x0F, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x03, 0x02, 0x01, 0x06, 0x7F]
        let reports = try LEAdvertisingReport.parse(hciEvent: packet)
        #expect(reports.count == 1)
        #expect(reports[0].rssi == nil)
        #expect(reports[0].addressType == .public)
        #expect(reports[0].bracelet == nil)
        #expect(reports[0].data == [0x02, 0x01, 0x06])
    }

    @Test func truncatedReportIsAnErrorWithOffset() {
        // Declares 20 data bytes but the packet ends after 3.
        let packet: [UInt8] = [0x04, 0x3E, 0x0E, 0x02, 0x01, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 20, 0x02, 0x01, 0x06]
        #expect(throws: LEAdvertisingReportError.truncated(offset: 17, needed: 35)) {
            try LEAdvertisingReport.parse(hciEvent: packet)
        }
        // Other events decode to no reports.
        #expect((try? LEAdvertisingReport.parse(hciEvent: [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])) == [])
    }

    @Test func errnoMapsToActionableErrors() {
        #expect(BluetoothError.classify(errno: EAFNOSUPPORT, operation: "x") == .kernelLacksBluetooth)
        #expect(BluetoothError.classify(errno: EPERM, operation: "scan") == .permissionDenied(operation: "scan"))
        #expect(BluetoothError.classify(errno: EACCES, operation: "scan") == .permissionDenied(operation: "scan"))
        #expect(BluetoothError.classify(errno: ENODEV, operation: "x", adapter: "hci1") == .noAdapter(name: "hci1"))
        #expect(BluetoothError.classify(errno: EHOSTDOWN, operation: "c", address: "A") == .deviceNotFound(address: "A"))
        #expect(BluetoothError.classify(errno: ECONNREFUSED, operation: "c", address: "A") == .connectionRefused(address: "A"))
        #expect(BluetoothError.classify(errno: ETIMEDOUT, operation: "c", address: "A") == .connectionTimedOut(address: "A", seconds: 0))
        #expect(BluetoothError.permissionDenied(operation: "scan").description.contains("CAP_NET_RAW"))
        #expect(BluetoothError.adapterDown(name: "hci0").description.contains("power on"))
        #expect(BluetoothError.kernelLacksBluetooth.description.contains("simulate"))
    }

    /// On a machine without Bluetooth in the kernel (like the CI machine) scanning and connecting
    /// must fail at once with the kernel error, not hang.
    @Test func noBluetoothInKernelFailsFast() throws {
        let probe = socket(AF_BLUETOOTH, 3 /* SOCK_RAW */, 1 /* BTPROTO_HCI */)
        let kernelHasBluetooth = probe >= 0
        if probe >= 0 { close(probe) }
        let started = ContinuousClock.now
        let scanError = #expect(throws: BluetoothError.self) { try LEScanner().scan(seconds: 5) }
        let connector = L2CAPConnector(address: BluetoothAddress("C0:FF:EE:00:11:22")!, timeout: .seconds(5))
        let connectError = #expect(throws: BluetoothError.self) { try connector.connect() }
        if !kernelHasBluetooth {
            #expect(scanError == .kernelLacksBluetooth)
            #expect(connectError == .kernelLacksBluetooth)
            #expect(started.duration(to: .now) < .seconds(1))
        }
    }
}
