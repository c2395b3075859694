import BraceletProtocol
/// One entry of a Find Information Response: an attribute handle and its type.
public struct ATTHandleUUID: Hashable, Sendable {
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute type.
    public var uuid: BluetoothUUID

    /// Pairs a handle with its attribute type.
    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// One entry of a Read By Type Response: an attribute handle and (the start of) its value.
public struct ATTHandleValue: Hashable, Sendable {
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute value (possibly truncated by the server to fit the MTU).
    public var value: [UInt8]

    /// Pairs a handle with a value.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// One entry of a Read By Group Type Response: a group (e.g. a primary service) and its value.
public struct ATTGroupValue: Hashable, Sendable {
    /// The handle of the grouping attribute (e.g. the service declaration).
    public var handle: UInt16
    /// The last handle that belongs to the group.
    public var endGroupHandle: UInt16
    /// The grouping attribute's value (for a primary service: its UUID in wire form).
    public var value: [UInt8]

    /// Describes one group.
    public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.endGroupHandle = endGroupHandle
        self.value = value
    }
}

/// The content of a Find Information Response (0x05): at least one handle/UUID pair, all UUIDs of
/// the same size (the response's format byte says which).
public struct ATTFindInformationResponse: Hashable, Sendable {
    /// The handle/UUID pairs, in handle order as the server sent them.
    public let entries: [ATTHandleUUID]

    /// Builds a response. Throws ``ATTPDUError/emptyList(opcode:)`` for no entries and
    /// ``ATTPDUError/mixedEntryLengths(opcode:firstLength:otherLength:entryIndex:)`` when 16-bit and
    /// 128-bit UUIDs are mixed.
    public init(entries: [ATTHandleUUID]) throws(ATTPDUError) {
        guard let first = entries.first else { throw .emptyList(opcode: .findInformationResponse) }
        for (i, e) in entries.enumerated() where e.uuid.wireLength != first.uuid.wireLength {
            throw .mixedEntryLengths(opcode: .findInformationResponse, firstLength: 2 + first.uuid.wireLength,
                                     otherLength: 2 + e.uuid.wireLength, entryIndex: i)
        }
        self.entries = entries
    }

    init(validated entries: [ATTHandleUUID]) { self.entries = entries }

    /// The format byte: 1 for 16-bit UUIDs, 2 for 128-bit UUIDs.
    public var format: UInt8 { entries.first?.uuid.wireLength == 16 ? 2 : 1 }
}

/// The content of a Read By Type Response (0x09): at least one handle/value pair, all values of
/// the same length.
public struct ATTReadByTypeResponse: Hashable, Sendable {
    /// The handle/value pairs as the server sent them.
    public let entries: [ATTHandleValue]

    /// Builds a response; throws if there are no entries, if the values differ in length, or if a
    /// value is longer than 253 bytes.
    public init(entries: [ATTHandleValue]) throws(ATTPDUError) {
        guard let first = entries.first else { throw .emptyList(opcode: .readByTypeResponse) }
        for (i, e) in entries.enumerated() where e.value.count != first.value.count {
            throw .mixedEntryLengths(opcode: .readByTypeResponse, firstLength: 2 + first.value.count,
                                     otherLength: 2 + e.value.count, entryIndex: i)
        }
        guard 2 + first.value.count <= 255 else {
            throw .entryTooLong(opcode: .readByTypeResponse, length: 2 + first.value.count)
        }
        self.entries = entries
    }

    init(validated entries: [ATTHandleValue]) { self.entries = entries }

    /// The length byte: the size of one handle/value pair.
    public var entryLength: UInt8 { UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)) }
}

/// The content of a Read By Group Type Response (0x11): at least one group, all values of the
/// same length.
public struct ATTReadByGroupTypeResponse: Hashable, Sendable {
    /// The groups as the server sent them.
    public let entries: [ATTGroupValue]

    /// Builds a response; throws if there are no entries, if the values differ in length, or if a
    /// value is longer than 251 bytes.
    public init(entries: [ATTGroupValue]) throws(ATTPDUError) {
        guard let first = entries.first else { throw .emptyList(opcode: .readByGroupTypeResponse) }
        for (i, e) in entries.enumerated() where e.value.count != first.value.count {
            throw .mixedEntryLengths(opcode: .readByGroupTypeResponse, firstLength: 4 + first.value.count,
                                     otherLength: 4 + e.value.count, entryIndex: i)
        }
        guard 4 + first.value.count <= 255 else {
            throw .entryTooLong(opcode: .readByGroupTypeResponse, length: 4 + first.value.count)
        }
        self.entries = entries
    }

    init(validated entries: [ATTGroupValue]) { self.entries = entries }

    /// The length byte: the size of one group entry.
    public var entryLength: UInt8 { UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)) }
}
