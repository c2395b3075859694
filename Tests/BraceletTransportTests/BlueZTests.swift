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

    /// Device Found parameters as the kernel sends them: address (wire order), address type,
    /// RSSI, flags u32, data length u16, data.
    private func deviceFound(address: [UInt8], type: UInt8, rssi: Int8, data: [UInt8]) -> [UInt8] {
        address + [type, UInt8(bitPattern: rssi), 0x00, 0x00, 0x00, 0x00, UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    @Test func deviceFoundCarriesBraceletServiceData() throws {
        let advertisement = BraceletAdvertisement(pairingState: 0x01, serial: "V2A00042", brandID: 7, hardwareID: 3,
                                                  modelID: 2, localName: nil)
        // Advertisement then scan response, as the kernel merges them for an active discovery.
        let data = advertisement.encode() + [0x0C, 0x09] + Array("Bracelet V2".utf8)
        let event = deviceFound(address: [0x22, 0x11, 0x00, 0xEE, 0xFF, 0xC0], type: 2, rssi: -61, data: data)
        let report = try #require(try LEAdvertisingReport.parse(deviceFound: event))
        #expect(report.address.description == "C0:FF:EE:00:11:22")
        #expect(report.addressType == .random)
        #expect(report.rssi == -61)
        #expect(report.data == data)
        #expect(report.bracelet?.serial == "V2A00042")
        #expect(report.bracelet?.model == .v2)
        #expect(report.bracelet?.pairingState == 0x01)
        #expect(report.bracelet?.localName == "Bracelet V2")
    }

    @Test func deviceFoundWithoutRSSIPublicAndBREDR() throws {
        // LE public address, flags only, RSSI 127 = not available.
        let event = deviceFound(address: [1, 2, 3, 4, 5, 6], type: 1, rssi: 127, data: [0x02, 0x01, 0x06])
        let report = try #require(try LEAdvertisingReport.parse(deviceFound: event))
        #expect(report.rssi == nil)
        #expect(report.addressType == .public)
        #expect(report.bracelet == nil)
        // A BR/EDR device (type 0) is no LE advertiser.
        #expect(try LEAdvertisingReport.parse(deviceFound: deviceFound(address: [1, 2, 3, 4, 5, 6], type: 0, rssi: -40, data: [])) == nil)
    }

    @Test func truncatedDeviceFoundIsAnErrorWithOffset() {
        // Declares 20 data bytes but the event ends after 3.
        var event = deviceFound(address: [1, 2, 3, 4, 5, 6], type: 1, rssi: -50, data: [0x02, 0x01, 0x06])
        event[12] = 20
        #expect(throws: LEAdvertisingReportError.truncated(offset: 17, needed: 34)) {
            try LEAdvertisingReport.parse(deviceFound: event)
        }
        #expect(throws: LEAdvertisingReportError.truncated(offset: 5, needed: 14)) {
            try LEAdvertisingReport.parse(deviceFound: [1, 2, 3, 4, 5])
        }
    }

    @Test func managementPacketsRoundTripLittleEndian() throws {
        // Start Discovery on hci1 for LE public + random: opcode 0x0023, index 1, one parameter 0x06.
        let start = ManagementPacket(code: ManagementOpcode.startDiscovery, index: 1, parameters: [0x06])
        #expect(start.encode() == [0x23, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06])
        // Command Complete for it with status Busy (0x0A).
        let complete = try #require(ManagementPacket(bytes: [0x01, 0x00, 0x01, 0x00, 0x04, 0x00, 0x23, 0x00, 0x0A, 0x06]))
        #expect(complete.code == ManagementEventCode.commandComplete)
        #expect(complete.index == 1)
        #expect(complete.parameters == [0x23, 0x00, 0x0A, 0x06])
        // Shorter than its header says.
        #expect(ManagementPacket(bytes: [0x01, 0x00, 0x01, 0x00, 0x09, 0x00, 0x23]) == nil)
    }

    @Test func managementErrorsSayWhatToRun() {
        #expect(BluetoothError.adapterDown(name: "hci1").description.contains("btmgmt --index 1 power on"))
        #expect(BluetoothError.management(operation: "starting LE discovery", status: 0x0A).description.contains("busy"))
        #expect(BluetoothError.management(operation: "x", status: 0xEE).description.contains("0xee"))
    }

    @Test func errnoMapsToActionableErrors() {
        #expect(BluetoothError.classify(errno: EAFNOSUPPORT, operation: "x") == .kernelLacksBluetooth)
        #expect(BluetoothError.classify(errno: EPERM, operation: "scan") == .permissionDenied(operation: "scan"))
        #expect(BluetoothError.classify(errno: EACCES, operation: "scan") == .permissionDenied(operation: "scan"))
        #expect(BluetoothError.classify(errno: ENODEV, operation: "x", adapter: "hci1") == .noAdapter(name: "hci1"))
        #expect(BluetoothError.classify(errno: EHOSTDOWN, operation: "c", address: "A") == .deviceNotFound(address: "A"))
        #expect(BluetoothError.classify(errno: ECONNREFUSED, operation: "c", address: "A") == .connectionRefused(address: "A"))
        #expect(BluetoothError.classify(errno: ETIMEDOUT, operation: "c", address: "A") == .connectionTimedOut(address: "A", seconds: 0))
        #expect(BluetoothError.permissionDenied(operation: "scan").description.contains("CAP_NET_ADMIN"))
        #expect(BluetoothError.adapterDown(name: "hci0").description.contains("power on"))
        #expect(BluetoothError.kernelLacksBluetooth.description.contains("simulate"))
    }

    /// On a machine without Bluetooth in the kernel (like the CI machine) scanning and connecting
    /// must fail at once with the kernel error, not hang. Where the kernel has Bluetooth, the VM
    /// suite (tools/ble-vm/suite.sh) tests the live path instead.
    @Test(.enabled(if: !kernelHasBluetooth(), "this kernel has Bluetooth: tools/ble-vm/suite.sh tests scanning and connecting on it"))
    func noBluetoothInKernelFailsFast() throws {
        let started = ContinuousClock.now
        let scanError = #expect(throws: BluetoothError.self) { try LEScanner().scan(seconds: 5) }
        let connector = L2CAPConnector(address: BluetoothAddress("C0:FF:EE:00:11:22")!, timeout: .seconds(5))
        let connectError = #expect(throws: BluetoothError.self) { try connector.connect() }
        #expect(scanError == .kernelLacksBluetooth)
        #expect(connectError == .kernelLacksBluetooth)
        #expect(started.duration(to: .now) < .seconds(1))
    }
}

/// Whether `socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)` works here.
func kernelHasBluetooth() -> Bool {
    let probe = socket(AF_BLUETOOTH, 3 /* SOCK_RAW */, 1 /* BTPROTO_HCI */)
    if probe >= 0 { close(probe) }
    return probe >= 0
}
