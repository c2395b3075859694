import BraceletProtocol
import BraceletTransport
import CFuzzDriver

/// Advertising data from any device in radio range, and the management interface's Device Found
/// events that carry it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let advertisement = BraceletAdvertisement(advertisingData: bytes) {
        _ = BraceletAdvertisement(advertisingData: advertisement.encode())
    }
    if let report = try? LEAdvertisingReport.parse(deviceFound: bytes) {
        _ = BraceletAdvertisement(advertisingData: report.data)
    }
    return 0
}

@_cdecl("FuzzAdvertisement_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
