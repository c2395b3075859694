import BraceletProtocol

/// A primary service found by discovery.
public struct GATTService: Sendable, Hashable {
    /// The service UUID.
    public var uuid: BluetoothUUID
    /// The service declaration's handle.
    public var startHandle: UInt16
    /// The last handle of the service.
    public var endHandle: UInt16

    /// Creates a service entry.
    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }
}

/// A descriptor of a characteristic (e.g. the CCCD 0x2902).
public struct GATTDescriptor: Sendable, Hashable {
    /// Its handle.
    public var handle: UInt16
    /// Its type.
    public var uuid: BluetoothUUID

    /// Creates a descriptor entry.
    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// A characteristic found by discovery.
public struct GATTCharacteristic: Sendable, Hashable {
    /// The characteristic UUID.
    public var uuid: BluetoothUUID
    /// The declaration's handle.
    public var declarationHandle: UInt16
    /// The value's handle (what reads, writes and notifications use).
    public var valueHandle: UInt16
    /// Property bits: 0x02 read, 0x04 write without response, 0x08 write, 0x10 notify, 0x20 indicate.
    public var properties: UInt8
    /// The last handle belonging to this characteristic.
    public var endHandle: UInt16
    /// Its descriptors.
    public var descriptors: [GATTDescriptor] = []

    /// Creates a characteristic entry.
    public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: UInt8, endHandle: UInt16) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }

    /// Whether it can notify.
    public var canNotify: Bool { properties & 0x10 != 0 }
    /// Whether it can indicate.
    public var canIndicate: Bool { properties & 0x20 != 0 }
    /// The Client Characteristic Configuration descriptor's handle, if it has one.
    public var cccdHandle: UInt16? {
        descriptors.first { $0.uuid.expanded128 == BluetoothUUID.uuid16(0x2902).expanded128 }?.handle
    }
}

/// What discovery found on a server: services and their characteristics with descriptors.
public struct GATTDatabase: Sendable, Hashable {
    /// Primary services in handle order.
    public var services: [GATTService]
    /// Characteristics in handle order.
    public var characteristics: [GATTCharacteristic]

    /// Creates a database.
    public init(services: [GATTService], characteristics: [GATTCharacteristic]) {
        self.services = services
        self.characteristics = characteristics
    }

    /// The first characteristic with `uuid` (16-bit and 128-bit forms match), optionally within
    /// the service `service`.
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) -> GATTCharacteristic? {
        let wanted = uuid.expanded128
        let range: ClosedRange<UInt16>? = service.flatMap { s in
            services.first { $0.uuid.expanded128 == s.expanded128 }.map { $0.startHandle...$0.endHandle }
        }
        if service != nil && range == nil { return nil }
        return characteristics.first { c in
            c.uuid.expanded128 == wanted && (range?.contains(c.valueHandle) ?? true)
        }
    }

    /// Whether a value handle belongs to a discovered characteristic.
    public func isKnownValueHandle(_ handle: UInt16) -> Bool {
        characteristics.contains { $0.valueHandle == handle }
    }
}
