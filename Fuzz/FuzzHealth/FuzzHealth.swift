import BraceletProtocol
import CFuzzDriver

/// The standard (Bluetooth SIG) health characteristics a strap, an oximeter or a thermometer
/// sends: the first byte picks the parser (IEEE 11073 SFLOAT and FLOAT, PLX Continuous, PLX
/// Spot-Check, Temperature Measurement, Battery Level and Device Information text), the rest is its
/// input. A float's bits decode and encode back to themselves; a measurement that parses encodes
/// to bytes that parse to the same measurement (reserved flag bits and trailing bytes, which the
/// parsers ignore, are not kept).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 6 {
    case 0:
        var i = 0
        while i + 4 <= body.count {
            let raw16 = UInt16(body[i]) | UInt16(body[i + 1]) << 8
            precondition(MedicalFloat(sfloat: raw16).sfloatBits == raw16, "an SFLOAT does not encode back to its bits")
            let raw32 = UInt32(raw16) | UInt32(body[i + 2]) << 16 | UInt32(body[i + 3]) << 24
            let float = MedicalFloat(float: raw32)
            precondition(float.floatBits == raw32, "a FLOAT does not encode back to its bits")
            if let value = float.value { precondition(value.isFinite, "a FLOAT number is not finite") }
            _ = float.description
            i += 4
        }
    case 1:
        if let m = try? PLXContinuousMeasurement(value: body) {
            let bytes = m.encode()
            precondition(bytes != nil && (try? PLXContinuousMeasurement(value: bytes ?? [])) == m, "PLX continuous does not survive encode/parse")
        }
    case 2:
        if let m = try? PLXSpotCheckMeasurement(value: body) {
            let bytes = m.encode()
            precondition(bytes != nil && (try? PLXSpotCheckMeasurement(value: bytes ?? [])) == m, "PLX spot-check does not survive encode/parse")
        }
    case 3:
        if let m = try? TemperatureMeasurement(value: body) {
            let bytes = m.encode()
            precondition(bytes != nil && (try? TemperatureMeasurement(value: bytes ?? [])) == m, "temperature does not survive encode/parse")
            if let celsius = m.celsius { precondition(celsius.isFinite, "a temperature is not finite") }
        }
    case 4:
        if let level = try? StandardCharacteristicText.batteryLevel(body) { precondition((0...100).contains(level), "battery out of range") }
    default:
        if let text = try? StandardCharacteristicText.string(body, characteristic: "fuzz") {
            precondition(!text.isEmpty && text.first != " " && text.last != " ", "text not trimmed")
        }
    }
    return 0
}

@_cdecl("FuzzHealth_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
