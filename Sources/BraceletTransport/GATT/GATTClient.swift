import BraceletProtocol

/// A GATT client over an ``ATTBearer``: MTU exchange, discovery of primary services,
/// characteristics and descriptors, reads, writes, and enabling notifications or indications.
/// ATT error responses surface as ``GATTError/att(_:)`` with the error's name.
public struct GATTClient {
    /// The bearer the procedures run on.
    public let bearer: ATTBearer
    /// Raises the link when a read or write is refused with Insufficient Encryption or
    /// Insufficient Authentication; the refused request is then sent once more. `nil`: such a
    /// refusal is the answer.
    public var securityRaiser: LinkSecurityRaiser?

    /// A client on `bearer`.
    public init(bearer: ATTBearer, securityRaiser: LinkSecurityRaiser? = nil) {
        self.bearer = bearer
        self.securityRaiser = securityRaiser
    }

    /// Sends a read or write; a refusal for insufficient security raises the link (when a raiser
    /// is set) and the request goes out once more, whose answer stands.
    private func request(_ pdu: ATTPDU) throws(GATTError) -> ATTPDU {
        do { return try bearer.request(pdu) } catch {
            guard case .attError(_, _, let code) = error, let securityRaiser else { throw .att(error) }
            let raised: LinkSecurity?
            do { raised = try securityRaiser.raise(after: code) } catch let failure {
                throw .securityNotRaised(refusal: code, reason: "\(failure)", linkFailure: failure is LinkError || failure is SecurityNeedsNewLink)
            }
            guard raised != nil else { throw .att(error) }
            do { return try bearer.request(pdu) } catch { throw .att(error) }
        }
    }

    /// Exchanges MTUs; returns the MTU in force afterwards.
    @discardableResult
    public func exchangeMTU(_ mtu: Int = 247) throws(GATTError) -> Int {
        let response = try request(.exchangeMTURequest(clientRxMTU: UInt16(clamping: mtu)))
        guard case .exchangeMTUResponse = response else {
            throw .unexpectedResponse(request: .exchangeMTURequest, response: response.opcode)
        }
        return bearer.mtu
    }

    /// Runs a discovery loop: `step(start)` returns the entries' last handle, or `nil` when the
    /// server answers Attribute Not Found (the end).
    private func discoverLoop(from start: UInt16, to end: UInt16, _ step: (UInt16) throws(GATTError) -> UInt16?) throws(GATTError) {
        var next = start
        while next <= end && next != 0 {
            guard let last = try step(next) else { return }
            guard last >= next, last < end else { return }
            next = last + 1
        }
    }

    /// A discovery request; `nil` when the server answers Attribute Not Found (discovery is done).
    private func requestUntilEnd(_ pdu: ATTPDU) throws(GATTError) -> ATTPDU? {
        do { return try bearer.request(pdu) } catch {
            if case .attError(_, _, let code) = error, code == .attributeNotFound { return nil }
            throw .att(error)
        }
    }

    /// Every primary service (Read By Group Type 0x2800).
    public func discoverPrimaryServices() throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        try discoverLoop(from: 0x0001, to: 0xFFFF) { (start: UInt16) throws(GATTError) -> UInt16? in
            guard let response = try requestUntilEnd(.readByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF, groupType: .uuid16(0x2800))) else { return nil }
            guard case .readByGroupTypeResponse(let list) = response else {
                throw .unexpectedResponse(request: .readByGroupTypeRequest, response: response.opcode)
            }
            for e in list.entries {
                if let uuid = BluetoothUUID(wireBytes: e.value) {
                    services.append(GATTService(uuid: uuid, startHandle: e.handle, endHandle: e.endGroupHandle))
                }
            }
            return list.entries.last?.endGroupHandle
        }
        return services
    }

    /// The characteristics declared in `start ... end` (Read By Type 0x2803).
    public func discoverCharacteristics(from start: UInt16 = 1, to end: UInt16 = 0xFFFF) throws(GATTError) -> [GATTCharacteristic] {
        var found: [GATTCharacteristic] = []
        try discoverLoop(from: start, to: end) { (next: UInt16) throws(GATTError) -> UInt16? in
            guard let response = try requestUntilEnd(.readByTypeRequest(startHandle: next, endHandle: end, attributeType: .uuid16(0x2803))) else { return nil }
            guard case .readByTypeResponse(let list) = response else {
                throw .unexpectedResponse(request: .readByTypeRequest, response: response.opcode)
            }
            for e in list.entries where e.value.count == 5 || e.value.count == 19 {
                guard let uuid = BluetoothUUID(wireBytes: e.value[3...]) else { continue }
                let valueHandle = UInt16(e.value[1]) | UInt16(e.value[2]) << 8
                found.append(GATTCharacteristic(uuid: uuid, declarationHandle: e.handle, valueHandle: valueHandle,
                                                properties: e.value[0], endHandle: end))
            }
            return list.entries.last?.handle
        }
        // A characteristic ends where the next declaration starts.
        for i in found.indices where i + 1 < found.count {
            found[i].endHandle = found[i + 1].declarationHandle - 1
        }
        return found
    }

    /// The descriptors in `start ... end` (Find Information).
    public func discoverDescriptors(from start: UInt16, to end: UInt16) throws(GATTError) -> [GATTDescriptor] {
        guard start <= end else { return [] }
        var found: [GATTDescriptor] = []
        try discoverLoop(from: start, to: end) { (next: UInt16) throws(GATTError) -> UInt16? in
            guard let response = try requestUntilEnd(.findInformationRequest(startHandle: next, endHandle: end)) else { return nil }
            guard case .findInformationResponse(let list) = response else {
                throw .unexpectedResponse(request: .findInformationRequest, response: response.opcode)
            }
            for e in list.entries where e.handle >= start && e.handle <= end { found.append(GATTDescriptor(handle: e.handle, uuid: e.uuid)) }
            return list.entries.last?.handle
        }
        return found
    }

    /// Services, characteristics (each limited to its service) and their descriptors.
    public func discoverAll() throws(GATTError) -> GATTDatabase {
        let services = try discoverPrimaryServices()
        var characteristics: [GATTCharacteristic] = []
        for service in services {
            var inService = try discoverCharacteristics(from: service.startHandle, to: service.endHandle)
            for i in inService.indices {
                let c = inService[i]
                if c.valueHandle < c.endHandle {
                    inService[i].descriptors = try discoverDescriptors(from: c.valueHandle + 1, to: c.endHandle)
                }
            }
            characteristics += inService
        }
        return GATTDatabase(services: services, characteristics: characteristics)
    }

    /// Reads a value (at most MTU - 1 bytes).
    public func read(handle: UInt16) throws(GATTError) -> [UInt8] {
        let response = try request(.readRequest(handle: handle))
        guard case .readResponse(let value) = response else { throw .unexpectedResponse(request: .readRequest, response: response.opcode) }
        return value
    }

    /// Writes a value and waits for the Write Response.
    public func write(handle: UInt16, value: [UInt8]) throws(GATTError) {
        let response = try request(.writeRequest(handle: handle, value: value))
        guard case .writeResponse = response else { throw .unexpectedResponse(request: .writeRequest, response: response.opcode) }
    }

    /// Writes a value without response (Write Command).
    public func writeWithoutResponse(handle: UInt16, value: [UInt8]) throws(GATTError) {
        do { try bearer.send(.writeCommand(handle: handle, value: value)) } catch { throw .att(error) }
    }

    /// Enables notifications (`01 00`) or indications (`02 00`) through the characteristic's CCCD.
    public func enableNotifications(_ characteristic: GATTCharacteristic, indications: Bool = false) throws(GATTError) {
        guard let cccd = characteristic.cccdHandle else { throw .noCCCD(characteristic.uuid.description) }
        try write(handle: cccd, value: indications ? [0x02, 0x00] : [0x01, 0x00])
    }
}
