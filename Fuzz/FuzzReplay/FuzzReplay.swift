import BraceletCapture
import CFuzzDriver

/// A whole capture replayed: transfer recovery (size responses, data packets by offset, repeats,
/// losses, link drops and resumes, erases) and the decoding of the files it recovers. Memory must
/// follow what the capture carries (run with -rss_limit_mb).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let replayed = try? ReplayedCapture.load(bytes: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for file in replayed.metricsFiles { precondition(file.slots.count == file.outOfRange.count, "one out-of-range entry per slot") }
    _ = replayed.isIncomplete
    return 0
}

@_cdecl("FuzzReplay_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
