import BraceletCapture
import CFuzzDriver

/// A capture's HCI layer: packet types, ACL fragments and their reassembly into L2CAP frames, LE
/// link events and the ATT PDUs on channel 4.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let reader = try? ATTCaptureReader(bytes: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    var events = reader.makeIterator()
    while let event = events.next() {
        if case .att(let att) = event {
            _ = att.handleValue
            _ = try? att.decode()
        }
    }
    return 0
}

@_cdecl("FuzzCaptureReader_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
