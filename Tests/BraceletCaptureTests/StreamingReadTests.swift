import Foundation
import Testing
import BraceletDecoder
@testable import BraceletCapture

/// Captures read from disk are streamed a window at a time; what they yield must not depend on it.
@Suite struct StreamingReadTests {
    func path(_ name: String) -> String { BundledCaptures.directory.appendingPathComponent(name).path }

    @Test func aCaptureStreamedFromDiskReplaysLikeTheSameBytesInMemory() throws {
        for name in ["v2-three-days.btsnoop", "v1-faulty-transfer.btsnoop"] {
            let bytes = try CaptureFile.read(path: path(name))
            let fromMemory = try ReplayedCapture.load(bytes: bytes)
            let fromDisk = ReplayedCapture.load(reader: try ATTCaptureReader(contentsOfFile: path(name)))
            #expect(fromDisk.metricsFiles.map(\.slots) == fromMemory.metricsFiles.map(\.slots))
            #expect(fromDisk.metricsFiles.map(\.outOfRange) == fromMemory.metricsFiles.map(\.outOfRange))
            #expect(fromDisk.beatsFiles.map(\.beats) == fromMemory.beatsFiles.map(\.beats))
            #expect(fromDisk.heartRates.map(\.timestampMicros) == fromMemory.heartRates.map(\.timestampMicros))
            #expect(fromDisk.statistics == fromMemory.statistics)
            #expect(fromDisk.captureFaults == fromMemory.captureFaults)
            #expect(fromDisk.transferFaults == fromMemory.transferFaults)
            #expect(fromDisk.metricsFiles.map(\.records) == fromMemory.metricsFiles.map(\.slots.count))
            #expect(!fromDisk.metricsFiles.isEmpty)
        }
    }

    @Test func theIteratorOfAFileHoldsAWindowNotTheWholeFile() throws {
        let name = "v2-three-days.btsnoop"
        let size = try CaptureFile.read(path: path(name)).count
        #expect(size > BtsnoopReader.windowSize)
        var records = try BtsnoopReader(contentsOfFile: path(name)).makeIterator()
        var count = 0, largest = 0
        while records.next() != nil {
            count += 1
            largest = max(largest, records.bytes.count)
        }
        #expect(records.fault == nil)
        let inMemory = try BtsnoopReader(bytes: CaptureFile.read(path: path(name)))
        #expect(count == inMemory.reduce(0) { n, _ in n + 1 })
        #expect(largest <= BtsnoopReader.windowSize + Int(BtsnoopError.maximumRecordLength) + BtsnoopReader.recordHeaderSize)
    }

    @Test func aCutFileStopsWithTheFaultOfTheSameBytesInMemory() throws {
        let bytes = try CaptureFile.read(path: path("v2-three-days.btsnoop"))
        let cut = Array(bytes.prefix(BtsnoopReader.windowSize + 1000))
        let file = NSTemporaryDirectory() + "bracelet-cut-\(UInt32.random(in: 0...UInt32.max)).btsnoop"
        try CaptureFile.write(cut, to: file)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var fromDisk = try BtsnoopReader(contentsOfFile: file).makeIterator()
        var fromMemory = try BtsnoopReader(bytes: cut).makeIterator()
        while let a = fromMemory.next() {
            let b = fromDisk.next()
            #expect(a.offset == b?.offset && a.packet == b?.packet)
        }
        #expect(fromDisk.next() == nil)
        #expect(fromMemory.fault != nil)
        #expect(fromDisk.fault == fromMemory.fault)
    }
}
