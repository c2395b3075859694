import BraceletDecoder
import BraceletProtocol
import BraceletTransport

/// The simulated bracelet's GATT server: an attribute table with the services of
/// protocol-specs/bracelet-protocol.md §3, answering ATT requests and routing command writes to a
/// ``SimulatedFirmware``.
///
/// Transport-free: feed it request PDUs, send what it returns. The same server answers a Unix
/// socket (`bracelet simulate`) and writes the committed captures (`make-captures`).
public struct SimulatedGATTServer: Sendable {
    /// One attribute of the table.
    public struct Attribute: Sendable {
        /// Its handle.
        public var handle: UInt16
        /// Its type (service declaration, characteristic declaration, value, descriptor).
        public var type: BluetoothUUID
        /// Its value (for declarations, the declaration bytes).
        public var value: [UInt8]
    }

    /// Handles of the characteristics a client talks to.
    public struct Handles: Sendable, Hashable {
        public var command: UInt16 = 0
        public var response: UInt16 = 0
        public var data: UInt16 = 0
        public var heartRate: UInt16 = 0
        public var battery: UInt16 = 0
        public var plx: UInt16 = 0
        public var plxSpotCheck: UInt16 = 0
        public var temperature: UInt16 = 0
        /// Every CCCD handle, keyed by the value handle it configures.
        public var cccd: [UInt16: UInt16] = [:]
    }

    /// The protocol engine behind the vendor characteristics.
    public var firmware: SimulatedFirmware
    /// The attribute table, ascending by handle.
    public internal(set) var attributes: [Attribute] = []
    /// Handles of interest.
    public internal(set) var handles = Handles()
    /// The negotiated ATT MTU.
    public private(set) var mtu = 23
    /// CCCD values written by the client, keyed by CCCD handle.
    public private(set) var subscriptions: [UInt16: UInt16] = [:]
    /// The largest MTU the bracelet accepts.
    public static let maximumMTU = 247

    /// The server for `firmware`'s model: V2 adds Pulse Oximeter and Health Thermometer.
    public init(firmware: SimulatedFirmware, firmwareRevision: String = "1.4.2") {
        self.firmware = firmware
        let modelNumber = firmware.model == .v1 ? "287-1" : "287-2"
        var table = TableBuilder()
        table.service(BluetoothUUID(0x1800)) { t in
            _ = t.characteristic(BluetoothUUID(0x2A00), properties: 0x02, value: Array("Bracelet \(firmware.model)".uppercased().utf8))
        }
        table.service(BluetoothUUID(0x1801)) { _ in }
        table.service(GATTNumbers.deviceInformationService) { t in
            _ = t.characteristic(GATTNumbers.manufacturerName, properties: 0x02, value: Array("Bracelet Labs".utf8))
            _ = t.characteristic(GATTNumbers.modelNumber, properties: 0x02, value: Array(modelNumber.utf8))
            _ = t.characteristic(GATTNumbers.serialNumber, properties: 0x02, value: Array(firmware.serial.utf8))
            _ = t.characteristic(GATTNumbers.firmwareRevision, properties: 0x02, value: Array(firmwareRevision.utf8))
            _ = t.characteristic(GATTNumbers.hardwareRevision, properties: 0x02, value: Array("B".utf8))
            _ = t.characteristic(GATTNumbers.softwareRevision, properties: 0x02, value: Array("1".utf8))
        }
        var h = Handles()
        table.service(GATTNumbers.braceletService) { t in
            h.command = t.characteristic(GATTNumbers.commandCharacteristic, properties: 0x08, value: [])
            h.response = t.characteristic(GATTNumbers.responseCharacteristic, properties: 0x10, value: [], cccd: &h.cccd)
            h.data = t.characteristic(GATTNumbers.dataCharacteristic, properties: 0x10, value: [], cccd: &h.cccd)
        }
        table.service(GATTNumbers.heartRateService) { t in
            h.heartRate = t.characteristic(GATTNumbers.heartRateMeasurement, properties: 0x10, value: [], cccd: &h.cccd)
            _ = t.characteristic(BluetoothUUID(0x2A38), properties: 0x02, value: [0x02])
        }
        table.service(GATTNumbers.batteryService) { t in
            h.battery = t.characteristic(GATTNumbers.batteryLevel, properties: 0x12, value: [80], cccd: &h.cccd)
        }
        table.service(GATTNumbers.currentTimeService) { t in
            _ = t.characteristic(GATTNumbers.currentTime, properties: 0x12, value: [], cccd: &h.cccd)
        }
        if firmware.model == .v2 {
            table.service(GATTNumbers.pulseOximeterService) { t in
                h.plx = t.characteristic(GATTNumbers.plxContinuousMeasurement, properties: 0x10, value: [], cccd: &h.cccd)
            }
            table.service(GATTNumbers.healthThermometerService) { t in
                h.temperature = t.characteristic(GATTNumbers.temperatureMeasurement, properties: 0x20, value: [], cccd: &h.cccd)
            }
        }
        attributes = table.attributes
        handles = h
    }

    /// What answering one PDU produced.
    public struct Output: Sendable {
        /// PDUs to send, in order (the response first, then notifications).
        public var pdus: [ATTPDU] = []
        /// Whether the link drops after sending them.
        public var dropsLink = false
    }

    /// Answers one PDU from the client at `now` (UTC seconds).
    public mutating func receive(_ pdu: ATTPDU, now: Int64) -> Output {
        var out = Output()
        func error(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) {
            out.pdus.append(.errorResponse(requestOpcode: opcode, handle: handle, code: code))
        }
        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            mtu = max(23, min(Int(clientMTU), Self.maximumMTU))
            out.pdus.append(.exchangeMTUResponse(serverRxMTU: UInt16(Self.maximumMTU)))
        case let .readByGroupTypeRequest(start, end, type):
            guard type == GATTNumbers.primaryService else { return Output(pdus: [.errorResponse(requestOpcode: .readByGroupTypeRequest, handle: start, code: .unsupportedGroupType)]) }
            let services = attributes.filter { $0.type == type && $0.handle >= start && $0.handle <= end }
            var entries: [ATTGroupValue] = []
            for service in services {
                guard entries.isEmpty || entries[0].value.count == service.value.count else { break }
                guard (entries.count + 1) * (4 + service.value.count) + 2 <= mtu else { break }
                entries.append(ATTGroupValue(handle: service.handle, endGroupHandle: groupEnd(of: service.handle), value: service.value))
            }
            if let list = try? ATTReadByGroupTypeResponse(entries: entries) {
                out.pdus.append(.readByGroupTypeResponse(list))
            } else {
                error(.readByGroupTypeRequest, start, .attributeNotFound)
            }
        case let .readByTypeRequest(start, end, type):
            let matches = attributes.filter { $0.type == type && $0.handle >= start && $0.handle <= end }
            var entries: [ATTHandleValue] = []
            for a in matches {
                let value = Array(a.value.prefix(mtu - 4))
                guard entries.isEmpty || entries[0].value.count == value.count else { break }
                guard (entries.count + 1) * (2 + value.count) + 2 <= mtu else { break }
                entries.append(ATTHandleValue(handle: a.handle, value: value))
            }
            if let list = try? ATTReadByTypeResponse(entries: entries) {
                out.pdus.append(.readByTypeResponse(list))
            } else {
                error(.readByTypeRequest, start, .attributeNotFound)
            }
        case let .findInformationRequest(start, end):
            var entries: [ATTHandleUUID] = []
            for a in attributes where a.handle >= start && a.handle <= end {
                guard entries.isEmpty || entries[0].uuid.wireLength == a.type.wireLength else { break }
                guard (entries.count + 1) * (2 + a.type.wireLength) + 2 <= mtu else { break }
                entries.append(ATTHandleUUID(handle: a.handle, uuid: a.type))
            }
            if let list = try? ATTFindInformationResponse(entries: entries) {
                out.pdus.append(.findInformationResponse(list))
            } else {
                error(.findInformationRequest, start, .attributeNotFound)
            }
        case .readRequest(let handle):
            guard let a = attributes.first(where: { $0.handle == handle }) else { error(.readRequest, handle, .invalidHandle); break }
            if handle == handles.battery {
                out.pdus.append(.readResponse(value: [UInt8(clamping: firmware.history.batteryPercent(at: now))]))
            } else if a.type == GATTNumbers.currentTime {
                out.pdus.append(.readResponse(value: CurrentTimeValue.encode(unixSeconds: now + firmware.clockErrorSeconds, offsetMinutes: firmware.timeZoneOffsetMinutes ?? 0)))
            } else if handle == handles.command {
                error(.readRequest, handle, .readNotPermitted)
            } else {
                out.pdus.append(.readResponse(value: Array(a.value.prefix(mtu - 1))))
            }
        case let .writeRequest(handle, value), let .writeCommand(handle, value):
            let isRequest = pdu.opcode == .writeRequest
            if handles.cccd.values.contains(handle) {
                guard value.count == 2 else { if isRequest { error(.writeRequest, handle, .invalidAttributeValueLength) }; break }
                subscriptions[handle] = UInt16(value[0]) | UInt16(value[1]) << 8
                if isRequest { out.pdus.append(.writeResponse) }
            } else if handle == handles.command {
                if isRequest { out.pdus.append(.writeResponse) }
                let reply = firmware.handle(frame: value, now: now, mtu: mtu)
                if let response = reply.response, isSubscribed(handles.response) {
                    out.pdus.append(.handleValueNotification(handle: handles.response, value: response))
                }
                if isSubscribed(handles.data) {
                    for packet in reply.packets { out.pdus.append(.handleValueNotification(handle: handles.data, value: packet)) }
                }
                out.dropsLink = reply.dropsLink
            } else if attributes.contains(where: { $0.handle == handle }) {
                if isRequest { error(.writeRequest, handle, .writeNotPermitted) }
            } else if isRequest {
                error(.writeRequest, handle, .invalidHandle)
            }
        case .handleValueConfirmation:
            break
        default:
            // Responses and notifications are not requests; unknown requests get Request Not Supported.
            if pdu.opcode.rawValue & 0x01 == 0, pdu.opcode != .writeCommand {
                error(pdu.opcode, 0, .requestNotSupported)
            }
        }
        return out
    }

    /// Whether the client enabled notifications (or indications) of a value handle.
    public func isSubscribed(_ valueHandle: UInt16) -> Bool {
        guard let cccd = handles.cccd[valueHandle] else { return false }
        return (subscriptions[cccd] ?? 0) & 0x03 != 0
    }

    /// The link went down: subscriptions and the MTU reset, the firmware forgets its active file.
    public mutating func linkDown() {
        subscriptions = [:]
        mtu = 23
        firmware.linkDown()
    }

    private func groupEnd(of serviceHandle: UInt16) -> UInt16 {
        let next = attributes.first { $0.handle > serviceHandle && $0.type == GATTNumbers.primaryService }
        return next.map { $0.handle - 1 } ?? 0xFFFF
    }

    /// Builds an attribute table with consecutive handles.
    struct TableBuilder {
        var attributes: [Attribute] = []
        var next: UInt16 = 1

        mutating func add(_ type: BluetoothUUID, _ value: [UInt8]) -> UInt16 {
            attributes.append(Attribute(handle: next, type: type, value: value))
            next += 1
            return next - 1
        }

        mutating func service(_ uuid: BluetoothUUID, _ body: (inout TableBuilder) -> Void) {
            _ = add(GATTNumbers.primaryService, uuid.wireBytes)
            body(&self)
        }

        /// Adds a declaration and a value; returns the value handle.
        mutating func characteristic(_ uuid: BluetoothUUID, properties: UInt8, value: [UInt8]) -> UInt16 {
            let valueHandle = next + 1
            _ = add(GATTNumbers.characteristicDeclaration,
                    [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + uuid.wireBytes)
            return add(uuid, value)
        }

        /// Adds a declaration, a value and a CCCD; records the CCCD handle; returns the value handle.
        mutating func characteristic(_ uuid: BluetoothUUID, properties: UInt8, value: [UInt8], cccd: inout [UInt16: UInt16]) -> UInt16 {
            let valueHandle = characteristic(uuid, properties: properties, value: value)
            cccd[valueHandle] = add(GATTNumbers.clientCharacteristicConfiguration, [0, 0])
            return valueHandle
        }
    }
}

/// The Current Time characteristic value (0x2A2B) for a Unix time and offset.
public enum CurrentTimeValue {
    /// year u16, month, day, hours, minutes, seconds, day of week (1 = Monday), fractions256, adjust reason.
    public static func encode(unixSeconds: Int64, offsetMinutes: Int) -> [UInt8] {
        let local = unixSeconds + Int64(offsetMinutes) * 60
        let days = local.floorDivided(by: 86_400).quotient
        let weekday = Int(((days % 7) + 7 + 3) % 7) + 1  // 1970-01-01 was a Thursday (4)
        return SIGDateTime(localSeconds: local).encode() + [UInt8(weekday), 0, 0]
    }
}
