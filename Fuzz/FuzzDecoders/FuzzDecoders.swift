import BraceletDecoder
import BraceletProtocol
import CFuzzDriver

/// The metrics and beats decoders, C gather kernel included: the first byte picks the model and the
/// interval, the rest is records. Whole sealed files go through FileDecoder as well.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let records = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let model: DeviceModel = selector & 1 == 0 ? .v1 : .v2
    let interval = [60, 30, 1, 3600][Int(selector >> 1) & 3]
    let columns = MetricsColumns(capacity: 64)
    let decoder = MetricsDecoder(model: model, intervalSeconds: interval)
    var offset = 0
    while offset < records.count {
        let used = decoder.decode(UnsafeRawBufferPointer(rebasing: records[offset...]), firstStart: 1_774_742_400, into: columns)
        guard used > 0 else { break }
        precondition(used <= records.count - offset, "decoder consumed more bytes than it was given")
        for i in 0..<columns.count {
            _ = columns.slot(at: i)
            _ = columns.outOfRange(at: i)
        }
        offset += used
    }
    var beats: [Beat] = []
    BeatsCodec.decode(records, baseTime: 1_774_742_400, into: &beats)
    _ = try? FileDecoder.decodeMetrics(records, columns: columns) { _ in }
    _ = try? FileDecoder.decodeBeats(records)
    return 0
}

@_cdecl("FuzzDecoders_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    bracelet_fuzz_main(argc, argv)
}
