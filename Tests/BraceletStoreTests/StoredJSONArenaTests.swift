import Foundation
import Testing
@testable import BraceletStore

/// Copies into the arena keep their bytes after the arena and the other copies are gone, whether
/// they share a chunk, start a new one or are larger than a chunk.
@Test func storedJSONArenaCopiesOutliveTheArena() {
    let sizes = [0, 1, 4095, 700_000, 3 << 20, 9 << 20, 17, 8 << 20]
    var copies: [(Data, [UInt8])] = []
    do {
        let arena = StoredJSONArena()
        for (index, size) in sizes.enumerated() {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            copies.append((bytes.withUnsafeBytes { arena.copy($0) }, bytes))
        }
    }
    for (index, (data, bytes)) in copies.enumerated() {
        #expect(data.count == bytes.count, "copy \(index)")
        #expect(data.elementsEqual(bytes), "copy \(index)")
    }
    copies.removeFirst(4)
    #expect(copies.map(\.0.count) == Array(sizes.dropFirst(4)))
    #expect(copies.allSatisfy { $0.0.elementsEqual($0.1) })
}
