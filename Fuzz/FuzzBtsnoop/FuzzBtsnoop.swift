import BraceletCapture
import CFuzzDriver

/// btsnoop files: the header and record framing. Every record up to the first fault is delivered;
/// nothing traps, and the reader never runs past the buffer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let reader = try? BtsnoopReader(bytes: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    var records = 0
    for record in reader {
        records += 1
        _ = record
    }
    precondition(records <= size / 24 + 1, "more records than the bytes can hold")
    return 0
}

@_cdecl("FuzzBtsnoop_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
