import BraceletProtocol
/// One Attribute Protocol PDU (Bluetooth Core spec, Vol 3, Part F, 3.4): the payload of an L2CAP
/// frame on the ATT channel (CID 0x0004). Multi-byte fields are little-endian on the wire.
///
/// Decode with ``parse(_:)``, encode with ``encode()``. Opcodes this type does not model keep their
/// bytes in ``other(opcode:parameters:)`` so that nothing read from a capture is lost.
public enum ATTPDU: Hashable, Sendable {
    /// 0x01: a request failed. `requestOpcode` and `handle` name the request that failed.
    case errorResponse(requestOpcode: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// 0x02: the client's receive MTU.
    case exchangeMTURequest(clientRxMTU: UInt16)
    /// 0x03: the server's receive MTU. Both sides then use the smaller of the two MTUs.
    case exchangeMTUResponse(serverRxMTU: UInt16)
    /// 0x04: list the types of the attributes in a handle range.
    case findInformationRequest(startHandle: UInt16, endHandle: UInt16)
    /// 0x05: handles and types found.
    case findInformationResponse(ATTFindInformationResponse)
    /// 0x08: read attributes of a given type in a handle range (e.g. 0x2803 characteristic declarations).
    case readByTypeRequest(startHandle: UInt16, endHandle: UInt16, attributeType: BluetoothUUID)
    /// 0x09: handles and values found.
    case readByTypeResponse(ATTReadByTypeResponse)
    /// 0x0A: read one attribute value.
    case readRequest(handle: UInt16)
    /// 0x0B: the value read (at most MTU - 1 bytes).
    case readResponse(value: [UInt8])
    /// 0x10: read grouping attributes of a type in a handle range (e.g. 0x2800 primary services).
    case readByGroupTypeRequest(startHandle: UInt16, endHandle: UInt16, groupType: BluetoothUUID)
    /// 0x11: groups found.
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    /// 0x12: write a value and ask for a response.
    case writeRequest(handle: UInt16, value: [UInt8])
    /// 0x13: the write request succeeded.
    case writeResponse
    /// 0x52: write a value without response.
    case writeCommand(handle: UInt16, value: [UInt8])
    /// 0x1B: the server pushes a value; no confirmation.
    case handleValueNotification(handle: UInt16, value: [UInt8])
    /// 0x1D: the server pushes a value; the client must confirm.
    case handleValueIndication(handle: UInt16, value: [UInt8])
    /// 0x1E: the client confirms an indication.
    case handleValueConfirmation
    /// Any other opcode, with the bytes after the opcode unchanged.
    case other(opcode: ATTOpcode, parameters: [UInt8])

    /// The opcode this PDU is sent with.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .other(let opcode, _): opcode
        }
    }

    /// The wire form: opcode byte then parameters, little-endian.
    public func encode() -> [UInt8] {
        var out: [UInt8] = [opcode.rawValue]
        func u16(_ v: UInt16) { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) }
        switch self {
        case let .errorResponse(requestOpcode, handle, code):
            out.append(requestOpcode.rawValue); u16(handle); out.append(code.rawValue)
        case let .exchangeMTURequest(mtu), let .exchangeMTUResponse(mtu):
            u16(mtu)
        case let .findInformationRequest(start, end):
            u16(start); u16(end)
        case let .findInformationResponse(response):
            out.append(response.format)
            for e in response.entries { u16(e.handle); out.append(contentsOf: e.uuid.wireBytes) }
        case let .readByTypeRequest(start, end, type), let .readByGroupTypeRequest(start, end, type):
            u16(start); u16(end); out.append(contentsOf: type.wireBytes)
        case let .readByTypeResponse(response):
            out.append(response.entryLength)
            for e in response.entries { u16(e.handle); out.append(contentsOf: e.value) }
        case let .readRequest(handle):
            u16(handle)
        case let .readResponse(value):
            out.append(contentsOf: value)
        case let .readByGroupTypeResponse(response):
            out.append(response.entryLength)
            for e in response.entries { u16(e.handle); u16(e.endGroupHandle); out.append(contentsOf: e.value) }
        case let .writeRequest(handle, value), let .writeCommand(handle, value),
             let .handleValueNotification(handle, value), let .handleValueIndication(handle, value):
            u16(handle); out.append(contentsOf: value)
        case .writeResponse, .handleValueConfirmation:
            break
        case let .other(_, parameters):
            out.append(contentsOf: parameters)
        }
        return out
    }

    /// Decodes one ATT PDU (opcode byte first). Throws ``ATTPDUError`` when the bytes are too short,
    /// have the wrong size for a fixed-size PDU, or carry inconsistent length or format fields.
    /// Unknown opcodes are not an error: they decode to ``other(opcode:parameters:)``.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ATTPDUError) -> ATTPDU {
        let b = Array(bytes)
        guard let first = b.first else { throw .empty }
        let op = ATTOpcode(rawValue: first)
        let n = b.count
        func u16(_ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
        func exactly(_ size: Int) throws(ATTPDUError) {
            if n != size { throw .wrongLength(opcode: op, expected: size, actual: n) }
        }
        func atLeast(_ size: Int) throws(ATTPDUError) {
            if n < size { throw .tooShort(opcode: op, minimum: size, actual: n) }
        }
        func uuid(from offset: Int) throws(ATTPDUError) -> BluetoothUUID {
            guard let u = BluetoothUUID(wireBytes: b[offset...]) else {
                throw .invalidUUIDLength(opcode: op, offset: offset, length: n - offset)
            }
            return u
        }

        switch op {
        case .errorResponse:
            try exactly(5)
            return .errorResponse(requestOpcode: ATTOpcode(rawValue: b[1]), handle: u16(2),
                                  code: ATTErrorCode(rawValue: b[4]))
        case .exchangeMTURequest:
            try exactly(3)
            return .exchangeMTURequest(clientRxMTU: u16(1))
        case .exchangeMTUResponse:
            try exactly(3)
            return .exchangeMTUResponse(serverRxMTU: u16(1))
        case .findInformationRequest:
            try exactly(5)
            return .findInformationRequest(startHandle: u16(1), endHandle: u16(3))
        case .findInformationResponse:
            try atLeast(2)
            let uuidLength: Int
            switch b[1] {
            case 1: uuidLength = 2
            case 2: uuidLength = 16
            default: throw .invalidFindInformationFormat(b[1])
            }
            let entryLength = 2 + uuidLength
            let listLength = n - 2
            guard listLength > 0 else { throw .emptyList(opcode: op) }
            guard listLength % entryLength == 0 else {
                throw .listLengthMismatch(opcode: op, entryLength: entryLength, listLength: listLength)
            }
            var entries: [ATTHandleUUID] = []
            entries.reserveCapacity(listLength / entryLength)
            var i = 2
            while i < n {
                guard let u = BluetoothUUID(wireBytes: b[(i + 2)..<(i + entryLength)]) else { break }
                entries.append(ATTHandleUUID(handle: u16(i), uuid: u))
                i += entryLength
            }
            return .findInformationResponse(ATTFindInformationResponse(validated: entries))
        case .readByTypeRequest, .readByGroupTypeRequest:
            try atLeast(7)
            let type = try uuid(from: 5)
            return op == .readByTypeRequest
                ? .readByTypeRequest(startHandle: u16(1), endHandle: u16(3), attributeType: type)
                : .readByGroupTypeRequest(startHandle: u16(1), endHandle: u16(3), groupType: type)
        case .readByTypeResponse, .readByGroupTypeResponse:
            try atLeast(2)
            let isGroup = op == .readByGroupTypeResponse
            let minimum = isGroup ? 4 : 2
            let entryLength = Int(b[1])
            guard entryLength >= minimum else {
                throw .invalidEntryLength(opcode: op, length: b[1], minimum: minimum)
            }
            let listLength = n - 2
            guard listLength > 0 else { throw .emptyList(opcode: op) }
            guard listLength % entryLength == 0 else {
                throw .listLengthMismatch(opcode: op, entryLength: entryLength, listLength: listLength)
            }
            if isGroup {
                var entries: [ATTGroupValue] = []
                entries.reserveCapacity(listLength / entryLength)
                var i = 2
                while i < n {
                    entries.append(ATTGroupValue(handle: u16(i), endGroupHandle: u16(i + 2),
                                                 value: Array(b[(i + 4)..<(i + entryLength)])))
                    i += entryLength
                }
                return .readByGroupTypeResponse(ATTReadByGroupTypeResponse(validated: entries))
            } else {
                var entries: [ATTHandleValue] = []
                entries.reserveCapacity(listLength / entryLength)
                var i = 2
                while i < n {
                    entries.append(ATTHandleValue(handle: u16(i), value: Array(b[(i + 2)..<(i + entryLength)])))
                    i += entryLength
                }
                return .readByTypeResponse(ATTReadByTypeResponse(validated: entries))
            }
        case .readRequest:
            try exactly(3)
            return .readRequest(handle: u16(1))
        case .readResponse:
            return .readResponse(value: Array(b[1...]))
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            try atLeast(3)
            let handle = u16(1)
            let value = Array(b[3...])
            switch op {
            case .writeRequest: return .writeRequest(handle: handle, value: value)
            case .writeCommand: return .writeCommand(handle: handle, value: value)
            case .handleValueNotification: return .handleValueNotification(handle: handle, value: value)
            default: return .handleValueIndication(handle: handle, value: value)
            }
        case .writeResponse, .handleValueConfirmation:
            try exactly(1)
            return op == .writeResponse ? .writeResponse : .handleValueConfirmation
        default:
            return .other(opcode: op, parameters: Array(b[1...]))
        }
    }

    /// The attribute handle a PDU's bytes refer to, read without decoding the whole PDU: for read,
    /// write, write command, notification and indication PDUs (and the handle in an error
    /// response). `nil` for other opcodes or when the PDU is too short. Cheap enough for a capture's
    /// hot loop.
    public static func attributeHandle(in pdu: some Collection<UInt8>) -> UInt16? {
        var it = pdu.makeIterator()
        guard let op = it.next() else { return nil }
        switch op {
        case 0x0A, 0x0C, 0x12, 0x16, 0x52, 0xD2, 0x1B, 0x1D:
            guard let lo = it.next(), let hi = it.next() else { return nil }
            return UInt16(lo) | UInt16(hi) << 8
        case 0x01:
            guard it.next() != nil, let lo = it.next(), let hi = it.next() else { return nil }
            return UInt16(lo) | UInt16(hi) << 8
        default:
            return nil
        }
    }
}
