import BraceletSummaries
import CFuzzDriver

/// CSV sample exports as users hand them in: any bytes that are UTF-8 text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    _ = try? CSVSampleReader.read(text)
    _ = try? CSVSampleReader.read(text, intervalSeconds: 60)
    return 0
}

@_cdecl("FuzzCSV_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
