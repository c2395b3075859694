import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Testing

@Suite("Live link: GATT client against the simulated bracelet over a socketpair")
struct LinkGATTTests {
    func connectedClient(model: DeviceModel = .v2) throws -> (GATTClient, SimulatorServer) {
        let history = try PhysiologyModel.simulatedHistory(model: model, serial: "GATT0001", days: 1, seed: 3, endingAt: 1_780_000_000)
        let server = SimulatorServer(server: SimulatedGATTServer(firmware: SimulatedFirmware(history: history, beatWindows: [])),
                                     live: LiveHeartRateSource(model: history), clock: { 1_780_000_100 })
        let (a, b) = try SeqPacketSocket.pairDescriptors()
        Thread.detachNewThread { server.serve(connection: SeqPacketSocket(adopting: b)) }
        var configuration = ATTBearer.Configuration()
        configuration.requestTimeout = .seconds(5)
        return (GATTClient(bearer: ATTBearer(socket: SeqPacketSocket(adopting: a), configuration: configuration)), server)
    }

    @Test func discoversTheBraceletLayoutAndReadsDeviceInformation() throws {
        let (gatt, server) = try connectedClient()
        defer { server.stop() }
        #expect(try gatt.exchangeMTU(247) == 247)
        let db = try gatt.discoverAll()
        // GAP, GATT, Device Information, bracelet, Heart Rate, Battery, Current Time, PLX, Thermometer.
        #expect(db.services.count == 9)
        let handles = server.snapshot.handles
        #expect(db.characteristic(GATTNumbers.commandCharacteristic, in: GATTNumbers.braceletService)?.valueHandle == handles.command)
        let data = try #require(db.characteristic(GATTNumbers.dataCharacteristic))
        #expect(data.valueHandle == handles.data)
        #expect(data.cccdHandle == handles.cccd[handles.data])
        #expect(data.canNotify)
        #expect(db.characteristic(GATTNumbers.temperatureMeasurement)?.canIndicate == true)
        let model = try #require(db.characteristic(GATTNumbers.modelNumber))
        #expect(String(decoding: try gatt.read(handle: model.valueHandle), as: UTF8.self) == "287-2")
        // Heart Rate is not in the Battery service.
        #expect(db.characteristic(GATTNumbers.heartRateMeasurement, in: GATTNumbers.batteryService) == nil)
    }

    @Test func writesNotificationsAndNamedErrors() throws {
        let (gatt, server) = try connectedClient(model: .v1)
        defer { server.stop() }
        _ = try gatt.exchangeMTU()
        let db = try gatt.discoverAll()
        let response = try #require(db.characteristic(GATTNumbers.responseCharacteristic))
        let command = try #require(db.characteristic(GATTNumbers.commandCharacteristic))
        try gatt.enableNotifications(response)
        #expect(server.snapshot.isSubscribed(response.valueHandle))
        try gatt.write(handle: command.valueHandle, value: Command.status.encode())
        let n = try #require(try gatt.bearer.nextNotification(timeout: .seconds(2)))
        #expect(n.handle == response.valueHandle)
        guard case .status = try Response(frame: n.value) else { Issue.record("expected a status response"); return }
        // Write without response: the firmware still answers on the Response characteristic.
        try gatt.writeWithoutResponse(handle: command.valueHandle, value: Command.setPlan(.typical).encode())
        let planned = try #require(try gatt.bearer.nextNotification(timeout: .seconds(2)))
        #expect(try Response(frame: planned.value) == .planSet(.typical))
        // Reading the write-only Command characteristic: Read Not Permitted, by name.
        let error = #expect(throws: GATTError.self) { try gatt.read(handle: command.valueHandle) }
        #expect(error?.description.contains("Read Not Permitted") == true)
        #expect(throws: GATTError.att(.attError(request: .writeRequest, handle: 0x0999, code: .invalidHandle))) {
            try gatt.write(handle: 0x0999, value: [1])
        }
        // A V1 has no thermometer: no CCCD to find, so enabling fails with a clear error.
        #expect(db.characteristic(GATTNumbers.temperatureMeasurement) == nil)
        let modelNumber = try #require(db.characteristic(GATTNumbers.modelNumber))
        #expect(throws: GATTError.noCCCD(modelNumber.uuid.description)) { try gatt.enableNotifications(modelNumber) }
    }

    @Test func liveHeartRateDecodesWithRRIntervals() throws {
        let (gatt, server) = try connectedClient()
        defer { server.stop() }
        _ = try gatt.exchangeMTU()
        let db = try gatt.discoverAll()
        let hr = try #require(db.characteristic(GATTNumbers.heartRateMeasurement))
        try gatt.enableNotifications(hr)
        let n = try #require(try gatt.bearer.nextNotification(timeout: .seconds(3)))
        #expect(n.handle == hr.valueHandle)
        let m = try HeartRateMeasurement(value: n.value)
        var source = LiveHeartRateSource(model: server.snapshot.firmware.history)
        #expect(m == source.measurement(endingAt: 1_780_000_100))
        #expect(m.contactDetected == true)
        #expect((30...220).contains(m.bpm))
    }
}
