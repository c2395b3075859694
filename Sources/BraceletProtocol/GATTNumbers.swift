/// A Bluetooth UUID, 16-bit (SIG-assigned) or 128-bit (vendor), stored as 16 bytes in the
/// little-endian order ATT uses on the wire.
public struct BluetoothUUID: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes, little-endian (ATT order).
    public var littleEndianBytes: [UInt8]

    /// The Bluetooth base UUID 00000000-0000-1000-8000-00805F9B34FB, little-endian.
    static let baseLittleEndian: [UInt8] = [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]

    /// A SIG-assigned 16-bit UUID.
    public init(_ short: UInt16) {
        var bytes = BluetoothUUID.baseLittleEndian
        bytes[12] = UInt8(truncatingIfNeeded: short)
        bytes[13] = UInt8(truncatingIfNeeded: short >> 8)
        littleEndianBytes = bytes
    }

    /// Parses the canonical text form `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    public init?(_ text: String) {
        guard text.count == 36, let bigEndian = bytes(fromHex: text),
              bigEndian.count == 16 else { return nil }
        littleEndianBytes = bigEndian.reversed()
    }

    /// Wraps 16 bytes in ATT (little-endian) order.
    public init(littleEndianBytes: [UInt8]) { self.littleEndianBytes = littleEndianBytes }

    /// Wraps bytes as they appear in an ATT PDU: 2 bytes (16-bit UUID) or 16 bytes.
    public init?(attBytes: [UInt8]) {
        switch attBytes.count {
        case 2: self.init(UInt16(attBytes[0]) | UInt16(attBytes[1]) << 8)
        case 16: self.init(littleEndianBytes: attBytes)
        default: return nil
        }
    }

    /// The 16-bit value when this UUID is on the Bluetooth base, else `nil`.
    public var shortValue: UInt16? {
        var base = littleEndianBytes
        base[12] = 0
        base[13] = 0
        guard base == BluetoothUUID.baseLittleEndian else { return nil }
        return UInt16(littleEndianBytes[12]) | UInt16(littleEndianBytes[13]) << 8
    }

    /// The shortest ATT encoding: 2 bytes for a 16-bit UUID, else 16.
    public var attBytes: [UInt8] {
        if let short = shortValue { return [UInt8(truncatingIfNeeded: short), UInt8(truncatingIfNeeded: short >> 8)] }
        return littleEndianBytes
    }

    /// `0x180D` for 16-bit UUIDs, the canonical lowercase form otherwise.
    public var description: String {
        if let short = shortValue { return "0x" + fourHexDigits(short) }
        let h = hexString(littleEndianBytes.reversed())
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
}

func fourHexDigits(_ value: UInt16) -> String {
    let h = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - h.count)) + h
}

/// The GATT services and characteristics of a bracelet.
public enum GATTNumbers {
    /// The vendor service carrying commands, responses and file data.
    public static let braceletService = BluetoothUUID("6b1e0001-5c3a-4f7e-9d2b-8a4c1f0e7d35")!
    /// Command characteristic: write (with response) ``Command`` frames.
    public static let commandCharacteristic = BluetoothUUID("6b1e0002-5c3a-4f7e-9d2b-8a4c1f0e7d35")!
    /// Response characteristic: notifies 6-byte ``Response`` frames.
    public static let responseCharacteristic = BluetoothUUID("6b1e0003-5c3a-4f7e-9d2b-8a4c1f0e7d35")!
    /// Data-stream characteristic: notifies ``DataPacket``s.
    public static let dataCharacteristic = BluetoothUUID("6b1e0004-5c3a-4f7e-9d2b-8a4c1f0e7d35")!

    /// Heart Rate service.
    public static let heartRateService = BluetoothUUID(0x180D)
    /// Heart Rate Measurement characteristic (notify).
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    /// Battery service.
    public static let batteryService = BluetoothUUID(0x180F)
    /// Battery Level characteristic (read, notify).
    public static let batteryLevel = BluetoothUUID(0x2A19)
    /// Device Information service.
    public static let deviceInformationService = BluetoothUUID(0x180A)
    /// Manufacturer Name String.
    public static let manufacturerName = BluetoothUUID(0x2A29)
    /// Model Number String: `287-1` (V1), `287-2` or `287-2B` (V2).
    public static let modelNumber = BluetoothUUID(0x2A24)
    /// Serial Number String.
    public static let serialNumber = BluetoothUUID(0x2A25)
    /// Firmware Revision String.
    public static let firmwareRevision = BluetoothUUID(0x2A26)
    /// Hardware Revision String.
    public static let hardwareRevision = BluetoothUUID(0x2A27)
    /// Software Revision String.
    public static let softwareRevision = BluetoothUUID(0x2A28)
    /// Current Time service.
    public static let currentTimeService = BluetoothUUID(0x1805)
    /// Current Time characteristic (read, write, notify).
    public static let currentTime = BluetoothUUID(0x2A2B)
    /// Pulse Oximeter service (V2).
    public static let pulseOximeterService = BluetoothUUID(0x1822)
    /// PLX Continuous Measurement characteristic (V2, notify).
    public static let plxContinuousMeasurement = BluetoothUUID(0x2A5F)
    /// Health Thermometer service (V2).
    public static let healthThermometerService = BluetoothUUID(0x1809)
    /// Temperature Measurement characteristic (V2, indicate).
    public static let temperatureMeasurement = BluetoothUUID(0x2A1C)
    /// Client Characteristic Configuration descriptor: write `01 00` to enable notifications,
    /// `02 00` for indications.
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    /// Primary Service declaration (grouping type for service discovery).
    public static let primaryService = BluetoothUUID(0x2800)
    /// Characteristic declaration.
    public static let characteristicDeclaration = BluetoothUUID(0x2803)

    /// The model a Device Information model-number string names, or `nil` for another device.
    public static func model(fromModelNumber text: String) -> DeviceModel? {
        switch String(text.filter { $0 != " " && $0 != "\0" }) {
        case "287-1": .v1
        case "287-2", "287-2B": .v2
        default: nil
        }
    }
}
