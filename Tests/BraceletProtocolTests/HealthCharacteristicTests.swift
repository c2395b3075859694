import BraceletProtocol
import Testing

// Where the vectors come from:
// - SFLOAT numbers: the table "Mder FLOATs and SFLOATs" of the HL7 Personal Health Device
//   Implementation Guide (hl7.org/fhir/uv/phd, MderFLOATsandSFLOATs.html), built from
//   ISO/IEEE 11073-20601; the five special values of both formats: IEEE 11073-20601 Annex F, as
//   the Bluetooth SIG's "Personal Health Devices Transcoding" white paper (v16, §2.2) lists them.
// - Temperature Measurement 00 6C 01 00 FF = 36.4 °C: the same SIG white paper, §2.2.6.
// - PLX measurements: the layouts of the SIG's characteristic definitions (PLX Spot-Check
//   Measurement 0x2A5E and PLX Continuous Measurement 0x2A5F, 2015-07-14); the two values a real
//   oximeter (ChoiceMMed) sent, as captured with nRF Connect and published in the Stack Overflow
//   question "How to decode pulse oximeter output into readable" (71264072).

@Suite("Standard health characteristics: SIG and IEEE 11073 vectors")
struct HealthCharacteristicTests {
    @Test(arguments: [
        (UInt16(0x0002), 2.0, "2"), (0xF014, 2.0, "2.0"), (0xE0C8, 2.0, "2.00"), (0x1002, 20.0, "20"),
        (0xF16C, 36.4, "36.4"), (0x0061, 97.0, "97"), (0x0FFF, -1.0, "-1"), (0xF800, -204.8, "-204.8"),
    ])
    func sfloatNumbersKeepTheirPrecision(raw: UInt16, value: Double, text: String) {
        let decoded = MedicalFloat(sfloat: raw)
        #expect(decoded.value == value)
        #expect(decoded.description == text)
        #expect(decoded.sfloatBits == raw)
    }

    @Test func theSpecialValuesAreNotNumbers() {
        let sfloat: [(UInt16, MedicalFloat)] = [(0x07FF, .notANumber), (0x0800, .notAtThisResolution), (0x07FE, .positiveInfinity),
                                               (0x0802, .negativeInfinity), (0x0801, .reserved)]
        for (raw, special) in sfloat {
            #expect(MedicalFloat(sfloat: raw) == special)
            #expect(MedicalFloat(sfloat: raw).value == nil)
            #expect(special.sfloatBits == raw)
        }
        let float: [(UInt32, MedicalFloat)] = [(0x007F_FFFF, .notANumber), (0x0080_0000, .notAtThisResolution),
                                              (0x007F_FFFE, .positiveInfinity), (0x0080_0002, .negativeInfinity), (0x0080_0001, .reserved)]
        for (raw, special) in float {
            #expect(MedicalFloat(float: raw) == special)
            #expect(MedicalFloat(float: raw).value == nil)
            #expect(special.floatBits == raw)
        }
        // The same mantissa with another exponent is a number (2047 x 10^-1).
        #expect(MedicalFloat(sfloat: 0xF7FF).value == 204.7)
        // A number too wide for an SFLOAT has no SFLOAT encoding (never a wrapped one).
        #expect(MedicalFloat.number(mantissa: 4_000, exponent: 0).sfloatBits == nil)
        #expect(MedicalFloat(36.4, fractionDigits: 1) == .number(mantissa: 364, exponent: -1))
        // The FLOAT exponents at both ends (found by FuzzHealth: -128 overflowed when negated).
        #expect(MedicalFloat(float: 0x8000_0002).description == "0." + String(repeating: "0", count: 127) + "2")
        #expect(MedicalFloat(float: 0x7F00_0003).description == "3" + String(repeating: "0", count: 127))
        #expect(MedicalFloat(float: 0x7F00_0003).value == 3e127)
    }

    @Test func theWhitePapersThermometerReadsAsItSays() throws {
        let m = try TemperatureMeasurement(value: [0x00, 0x6C, 0x01, 0x00, 0xFF])
        #expect(m.value == .number(mantissa: 364, exponent: -1))
        #expect(m.celsius == 36.4)
        #expect(!m.fahrenheit && m.timestamp == nil && m.type == nil)
        #expect(m.encode() == [0x00, 0x6C, 0x01, 0x00, 0xFF])
    }

    @Test func temperatureFlagsBringFahrenheitATimeStampAndASite() throws {
        // Flags 0x07: Fahrenheit, Time Stamp (2026-06-19 03:55:02), Temperature Type 9 (tympanum).
        let value: [UInt8] = [0x07, 0xA5, 0x03, 0x00, 0xFF, 0xEA, 0x07, 0x06, 0x13, 0x03, 0x37, 0x02, 0x09]
        let m = try TemperatureMeasurement(value: value)
        #expect(m.fahrenheit)
        #expect(m.value.value == 93.3)
        #expect(abs((m.celsius ?? 0) - 34.0555) < 0.001)
        #expect(m.timestamp == SIGDateTime(year: 2026, month: 6, day: 19, hours: 3, minutes: 55, seconds: 2))
        #expect(m.type == .tympanum)
        #expect(m.encode() == value)
        // A thermometer without a reading sends NaN: no temperature, never 0.
        #expect(try TemperatureMeasurement(value: [0x00, 0xFF, 0xFF, 0x7F, 0x00]).celsius == nil)
        // Cut short before its time stamp, or a reserved site: refused with what was wrong.
        #expect(throws: CharacteristicValueError.tooShort(characteristic: "Temperature Measurement (0x2A1C)", flags: 0x02, needed: 12, actual: 7)) {
            try TemperatureMeasurement(value: [0x02, 0x6C, 0x01, 0x00, 0xFF, 0xEA, 0x07])
        }
        #expect(throws: CharacteristicValueError.outOfRange(characteristic: "Temperature Measurement (0x2A1C)", field: "Temperature Type", value: 0)) {
            try TemperatureMeasurement(value: [0x04, 0x6C, 0x01, 0x00, 0xFF, 0x00])
        }
    }

    @Test func aRealOximetersSpotCheckDecodes() throws {
        let value: [UInt8] = [0x17, 0x61, 0x00, 0x60, 0x00, 0xE1, 0x07, 0x01, 0x01, 0x01, 0x22, 0x13, 0x20, 0x00, 0x20, 0x00, 0x00]
        let m = try PLXSpotCheckMeasurement(value: value)
        #expect(m.reading.spo2.value == 97)
        #expect(m.reading.pulseRate.value == 96)
        #expect(m.timestamp == SIGDateTime(year: 2017, month: 1, day: 1, hours: 1, minutes: 34, seconds: 19))
        #expect(m.measurementStatus == .measurementOngoing)
        #expect(m.deviceAndSensorStatus == .lowPerfusionDetected)
        #expect(m.pulseAmplitudeIndex == nil)
        #expect(m.deviceClockNotSet)
        #expect(m.encode() == value)
    }

    @Test func aRealOximetersContinuousMeasurementDecodes() throws {
        let value: [UInt8] = [0x0C, 0x62, 0x00, 0x4E, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00]
        let m = try PLXContinuousMeasurement(value: value)
        #expect(m.normal == SpO2PulseRate(spo2: .number(mantissa: 98, exponent: 0), pulseRate: .number(mantissa: 78, exponent: 0)))
        #expect(m.fast == nil && m.slow == nil)
        #expect(m.measurementStatus == .measurementOngoing)
        #expect(m.deviceAndSensorStatus == [])
        #expect(m.encode() == value)
    }

    @Test func everyOptionalPLXFieldComesInTheFlagsOrder() throws {
        let full = PLXContinuousMeasurement(
            normal: SpO2PulseRate(spo2: .number(mantissa: 97, exponent: 0), pulseRate: .number(mantissa: 61, exponent: 0)),
            fast: SpO2PulseRate(spo2: .number(mantissa: 960, exponent: -1), pulseRate: .notANumber),
            slow: SpO2PulseRate(spo2: .number(mantissa: 98, exponent: 0), pulseRate: .number(mantissa: 60, exponent: 0)),
            measurementStatus: [.validatedData, .fullyQualifiedData], deviceAndSensorStatus: [.sensorUnconnectedToUser, .poorSignalDetected],
            pulseAmplitudeIndex: .number(mantissa: 35, exponent: -1))
        let bytes = try #require(full.encode())
        #expect(bytes == [0x1F, 0x61, 0x00, 0x3D, 0x00, 0xC0, 0xF3, 0xFF, 0x07, 0x62, 0x00, 0x3C, 0x00, 0x80, 0x01, 0x10, 0x08, 0x00,
                          0x23, 0xF0])
        #expect(try PLXContinuousMeasurement(value: bytes) == full)
        // Reserved flag bits and trailing bytes of a later version are ignored.
        #expect(try PLXContinuousMeasurement(value: [0xE0, 0x61, 0x00, 0x3D, 0x00, 0xAA]).normal.spo2.value == 97)
        #expect(throws: CharacteristicValueError.self) { try PLXContinuousMeasurement(value: [0x04, 0x61, 0x00, 0x3D, 0x00, 0x80]) }
        #expect(throws: CharacteristicValueError.self) { try PLXSpotCheckMeasurement(value: []) }
    }

    @Test func batteryAndDeviceInformationText() throws {
        #expect(try StandardCharacteristicText.batteryLevel([64]) == 64)
        #expect(throws: CharacteristicValueError.outOfRange(characteristic: "Battery Level (0x2A19)", field: "level", value: 101)) {
            try StandardCharacteristicText.batteryLevel([101])
        }
        #expect(try StandardCharacteristicText.string(Array("SN 0042\0\0".utf8), characteristic: "Serial Number (0x2A25)") == "SN 0042")
        #expect(try StandardCharacteristicText.string([0, 0], characteristic: "Serial Number (0x2A25)") == nil)
        #expect(throws: CharacteristicValueError.notUTF8(characteristic: "Model Number (0x2A24)")) {
            try StandardCharacteristicText.string([0xC3, 0x28], characteristic: "Model Number (0x2A24)")
        }
        // What names the device in logs and rows: no control characters (a newline forges a log line,
        // an escape rewrites a terminal), no bidirectional override, and a name's length at most.
        #expect(throws: CharacteristicValueError.notPrintable(characteristic: "Serial Number (0x2A25)", value: "SN\\n1")) {
            try StandardCharacteristicText.string(Array("SN\n1".utf8), characteristic: "Serial Number (0x2A25)")
        }
        #expect(throws: CharacteristicValueError.notPrintable(characteristic: "Model Number (0x2A24)", value: "\\e[31mX")) {
            try StandardCharacteristicText.string(Array("\u{1B}[31mX".utf8), characteristic: "Model Number (0x2A24)")
        }
        #expect(throws: (any Error).self) { try StandardCharacteristicText.string(Array("A\u{202E}B".utf8), characteristic: "Serial Number (0x2A25)") }
        let long = String(repeating: "7", count: StandardCharacteristicText.maximumLength)
        #expect(try StandardCharacteristicText.string(Array(long.utf8), characteristic: "Serial Number (0x2A25)") == long)
        #expect(throws: CharacteristicValueError.tooLong(characteristic: "Serial Number (0x2A25)", length: 65, limit: 64)) {
            try StandardCharacteristicText.string(Array((long + "8").utf8), characteristic: "Serial Number (0x2A25)")
        }
    }

    @Test func aSensorMeasurementIsDecodedByItsCharacteristic() throws {
        #expect(try SensorMeasurement.decode([0x00, 72], characteristic: GATTNumbers.heartRateMeasurement)
                == .heartRate(HeartRateMeasurement(bpm: 72, contactDetected: nil, energyExpendedKJ: nil, rrIntervals1024: [])))
        #expect(try SensorMeasurement.decode([55], characteristic: GATTNumbers.batteryLevel) == .battery(55))
        #expect(try SensorMeasurement.decode([1], characteristic: GATTNumbers.modelNumber) == nil)
    }
}
