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
    /// Body Sensor Location characteristic of the Heart Rate service (read, one byte: 1 = chest, 2 = wrist...).
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
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
    /// Pulse Oximeter service (V2, and standard oximeters).
    public static let pulseOximeterService = BluetoothUUID(0x1822)
    /// PLX Continuous Measurement characteristic (V2, notify).
    public static let plxContinuousMeasurement = BluetoothUUID(0x2A5F)
    /// PLX Spot-Check Measurement characteristic (indicate).
    public static let plxSpotCheckMeasurement = BluetoothUUID(0x2A5E)
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
