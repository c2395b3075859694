import BraceletDecoder
import CFuzzDriver

/// The indented JSON layout on any bytes (a stored document that is not canonical JSON is laid out
/// all the same): never out of bounds, and the same bytes whether it runs 64 bytes at a time (a
/// large block) or byte by byte (a block too small for that), whole or split where the first byte
/// says.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    func laidOut(blockSize: Int, split: Int) -> [UInt8] {
        var out: [UInt8] = []
        let writer = CanonicalJSON.PrettyWriter(blockSize: blockSize) { out.append(contentsOf: $0) }
        writer.write(UnsafeBufferPointer(rebasing: input[..<split]))
        writer.write(UnsafeBufferPointer(rebasing: input[split...]))
        writer.finish()
        return out
    }
    let split = size == 0 ? 0 : Int(data[0]) % (size + 1)
    let whole = laidOut(blockSize: 1 << 16, split: 0)
    guard laidOut(blockSize: 64, split: 0) == whole, laidOut(blockSize: 1 << 16, split: split) == whole,
          laidOut(blockSize: 97, split: split) == whole else {
        fatalError("the layout of \(size) bytes depends on the block size or on where the input was split")
    }
    return 0
}

@_cdecl("FuzzLayout_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
