import BraceletVitality
import CFuzzDriver
import Foundation

/// ROOK JSON input files for `score --rook`: decoding and the checks on dates and values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? ROOKInputFile.decode(Data(bytes: data, count: size))
    return 0
}

@_cdecl("FuzzROOK_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
