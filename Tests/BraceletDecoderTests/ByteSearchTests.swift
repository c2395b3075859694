import Foundation
import Testing
@testable import BraceletDecoder

/// The offset a naive search finds, which the skip-table search must agree with.
private func naiveOffset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard !needle.isEmpty else { return 0 }
    guard needle.count <= haystack.count else { return nil }
    return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

private func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    haystack.withUnsafeBytes { ByteSearch.firstOffset(of: needle, in: $0) }
}

/// The search finds a key (the date check of stored summaries, the summary of an outbox envelope)
/// wherever it is, first occurrence first, and only where it is whole.
@Test func byteSearchFindsTheFirstOccurrenceExactlyWhereANaiveSearchDoes() {
    let key = Array(#""date":"2026-10-24""#.utf8)
    #expect(offset(of: key, in: Array(#"{"a":[1,2],"date":"2026-10-24","z":null}"#.utf8)) == 11)
    #expect(offset(of: key, in: key) == 0)
    #expect(offset(of: key, in: Array(#"{"date":"2026-10-25"}"#.utf8)) == nil)
    #expect(offset(of: key, in: Array(key.dropLast())) == nil)
    #expect(offset(of: key, in: []) == nil)
    #expect(offset(of: [], in: []) == 0)
    // Random texts over a small alphabet, so partial and overlapping matches are frequent.
    var rng = SystemRandomNumberGenerator()
    let alphabet = Array("ab\"d:".utf8)
    for _ in 0..<2_000 {
        let haystack = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
        let needle = (0..<Int.random(in: 1...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
        #expect(offset(of: needle, in: haystack) == naiveOffset(of: needle, in: haystack),
                "\(String(decoding: needle, as: UTF8.self)) in \(String(decoding: haystack, as: UTF8.self))")
    }
}
