import BraceletTransport
import CFuzzDriver

/// ATT PDUs as a hostile peripheral (or a damaged capture) delivers them: the codec must return a
/// PDU or an error for every byte string, never trap; what parses survives encode and parse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let pdu = try? ATTPDU.parse(bytes) {
        precondition((try? ATTPDU.parse(pdu.encode())) == pdu, "ATT PDU does not survive encode/parse")
    }
    _ = ATTPDU.attributeHandle(in: bytes)
    return 0
}

@_cdecl("FuzzATTPDU_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
