import Foundation
import Testing
import BraceletDecoder

private struct Empty: Codable {}

private struct Inner: Codable {
    var name: String
    var values: [Double]
    var nothing: [Int]
    var blank: Empty
}

/// Keys whose canonical order (Foundation's JSONSerialization: digits by value, case-insensitive
/// first) is also JSONEncoder's `.sortedKeys` order (by bytes), as for every summary key.
private struct Outer: Codable {
    var zeta: Int
    var alpha: String
    var isMain: Bool
    var inners: [Inner]
    var map: [String: Int]
    var none: [Inner]
}

@Test func prettyCanonicalBytesAreWhatJSONEncoderPrettyPrints() throws {
    let value = Outer(zeta: -42, alpha: "quote \" backslash \\ slash / newline \n tab \t bell \u{7} é ✓", isMain: true,
                      inners: [Inner(name: "x", values: [36.5, 0, -1.25, 1e16, 123456.789], nothing: [], blank: Empty()),
                           Inner(name: "", values: [], nothing: [1, 2], blank: Empty())],
                      map: ["b": 2, "a": 1, "c": 3], none: [])
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let expected = [UInt8](try encoder.encode(value))
    let got = CanonicalJSON.prettyPrinted(try CanonicalJSON.bytes(of: value, what: "test value"))
    #expect(String(decoding: got, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    #expect(CanonicalJSON.prettyPrinted([]) == [])
    #expect(CanonicalJSON.prettyPrinted(Array("[]".utf8)) == Array("[\n\n]".utf8))
    // Not canonical JSON (an unterminated string): laid out without reading past the end.
    #expect(CanonicalJSON.prettyPrinted(Array(#"{"a":"b\"#.utf8)) == Array("{\n  \"a\" : \"b\\".utf8))
}
