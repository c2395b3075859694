import Foundation
import Testing
@testable import BraceletIngest

/// The naive search the skip-table search must agree with.
private func naivelyContains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty else { return true }
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// The check that a stored summary is of its row's date finds the date key wherever it is, and
/// only where it is whole.
@Test func dateSearchFindsTheKeyExactlyWhereANaiveSearchDoes() {
    let key = Array(#""date":"2026-10-24""#.utf8)
    let json = Array(#"{"a":[1,2],"date":"2026-10-24","z":null}"#.utf8)
    #expect(StoredSummaryDocument.contains(Data(json), key))
    #expect(StoredSummaryDocument.contains(Data(key), key))
    #expect(!StoredSummaryDocument.contains(Data(Array(#"{"date":"2026-10-25"}"#.utf8)), key))
    #expect(!StoredSummaryDocument.contains(Data(key.dropLast()), key))
    #expect(!StoredSummaryDocument.contains(Data(), key))
    #expect(StoredSummaryDocument.contains(Data(), []))
    // Random texts over a small alphabet, so partial and overlapping matches are frequent.
    var rng = SystemRandomNumberGenerator()
    let alphabet = Array("ab\"d:".utf8)
    for _ in 0..<2_000 {
        let haystack = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
        let needle = (0..<Int.random(in: 1...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
        #expect(StoredSummaryDocument.contains(Data(haystack), needle) == naivelyContains(haystack, needle),
                "\(String(decoding: needle, as: UTF8.self)) in \(String(decoding: haystack, as: UTF8.self))")
    }
}
