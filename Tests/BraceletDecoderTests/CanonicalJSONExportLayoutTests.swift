import Foundation
import Testing
@testable import BraceletDecoder

private struct Sample: Encodable {
    let empty: [Int]
    let emptyObject: [String: Int]
    let nested: [[Int]]
    let small: Double
    let fraction: Double
    let text: String
    let flag: Bool
    let missing: Int?
    let rows: [[String: Double]]
}

/// Exports are written by the canonical writer, indented: the layout must stay the one the exports
/// had when Foundation's pretty-printing JSONEncoder wrote them.
@Suite struct CanonicalJSONExportLayoutTests {
    @Test func indentedOutputEqualsPrettyPrintedJSONEncoder() throws {
        let value = Sample(empty: [], emptyObject: [:], nested: [[], [1, 2]], small: 0.00005, fraction: 5.122444444444441,
                           text: "a/b \"q\" \u{1} é", flag: true, missing: nil,
                           rows: [["value": 58, "low": -1.5], [:]])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
        let out = CanonicalJSON.prettyPrinted(try CanonicalJSON.bytes(of: value, what: "the sample"))
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test func indentedAndCompactDifferOnlyInWhiteSpace() throws {
        let value = ["b": [1, 2], "a": []]
        let indented = CanonicalJSON.prettyPrinted(try CanonicalJSON.bytes(of: value, what: "the sample"))
        #expect(String(decoding: indented, as: UTF8.self) == "{\n  \"a\" : [\n\n  ],\n  \"b\" : [\n    1,\n    2\n  ]\n}")
        #expect(try CanonicalJSON.bytes(of: value, what: "the sample") == Array(#"{"a":[],"b":[1,2]}"#.utf8))
    }
}
