import BraceletProtocol
import CFuzzDriver

/// The bracelet's frames: the first byte picks the parser (data packet, file header, sealed file,
/// command, response, Heart Rate Measurement), the rest is its input. What parses must encode back
/// to bytes that parse to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 6 {
    case 0:
        if let packet = try? DataPacket(bytes: body) {
            precondition(packet.encode() == body, "data packet does not re-encode to its bytes")
        }
    case 1:
        _ = body.withUnsafeBytes { try? FileHeader(bytes: $0) }
    case 2:
        if let sealed = body.withUnsafeBytes({ try? SealedFile(bytes: $0) }) {
            precondition(sealed.recordBytes.lowerBound >= 0 && sealed.recordBytes.upperBound <= body.count, "records outside the file")
        }
    case 3:
        if let command = try? Command(frame: body) {
            precondition((try? Command(frame: command.encode())) == command, "command does not survive encode/parse")
        }
    case 4:
        if let response = try? Response(frame: body) {
            precondition((try? Response(frame: response.encode())) == response, "response does not survive encode/parse")
        }
    default:
        if let measurement = try? HeartRateMeasurement(value: body) {
            precondition((try? HeartRateMeasurement(value: measurement.encode())) == measurement, "measurement does not survive encode/parse")
        }
    }
    return 0
}

@_cdecl("FuzzFrames_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
