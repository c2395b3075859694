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

/// A document handed over in two pieces split anywhere (inside a string, between an opening
/// bracket and its close), through blocks of any size, is laid out byte for byte as the whole.
@Test func prettyWriterInPiecesLaysOutLikeTheWhole() throws {
    let value = Outer(zeta: 7, alpha: "a \"quoted\" \\ text", isMain: false,
                      inners: [Inner(name: "n", values: [1.5, -2], nothing: [], blank: Empty())],
                      map: ["k": 1], none: [])
    let canonical = try CanonicalJSON.bytes(of: value, what: "test value")
    let whole = CanonicalJSON.prettyPrinted(canonical)
    #expect(String(decoding: whole, as: UTF8.self).contains("\"nothing\" : [\n\n      ]"))
    for blockSize in [64, 97, 1 << 16] {
        for split in 0...canonical.count {
            var out: [UInt8] = []
            let writer = CanonicalJSON.PrettyWriter(blockSize: blockSize) { out.append(contentsOf: $0) }
            writer.write(Array(canonical[..<split]))
            writer.write(Array(canonical[split...]))
            writer.finish()
            #expect(out == whole, "block \(blockSize), split at \(split)")
        }
    }
}

/// Nesting deeper than a block holds indentation for is indented level by level all the same.
@Test func prettyWriterIndentsDeepNesting() {
    let depth = 150
    let canonical = Array((String(repeating: "[", count: depth) + "12" + String(repeating: "]", count: depth)).utf8)
    var expected = ""
    for level in 1...depth { expected += "[\n" + String(repeating: " ", count: 2 * level) }
    expected += "12"
    for level in (0..<depth).reversed() { expected += "\n" + String(repeating: " ", count: 2 * level) + "]" }
    for blockSize in [64, 1 << 16] {
        var out: [UInt8] = []
        let writer = CanonicalJSON.PrettyWriter(blockSize: blockSize) { out.append(contentsOf: $0) }
        writer.write(canonical)
        writer.finish()
        #expect(String(decoding: out, as: UTF8.self) == expected, "block \(blockSize)")
    }
}

/// Strings are skipped a word at a time up to their first quote or backslash: an escape or a
/// multi-byte character at any offset of a long string, and a piece that ends anywhere in it, are
/// laid out as JSONEncoder lays them out.
@Test func prettyWriterFindsEscapesAtEveryOffsetOfLongStrings() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    for offset in 0..<20 {
        for special in ["\"", "\\", "é", "\n", "\u{1}"] {
            let text = String(repeating: "k", count: offset) + special + String(repeating: "v", count: 19 - offset) + "\\\"✓"
            let value = ["key " + text: [text, "", text + text]]
            let expected = [UInt8](try encoder.encode(value))
            let canonical = try CanonicalJSON.bytes(of: value, what: "test value")
            #expect(CanonicalJSON.prettyPrinted(canonical) == expected, "offset \(offset), \(special.debugDescription)")
            for split in stride(from: 0, through: canonical.count, by: 3) {
                var out: [UInt8] = []
                let writer = CanonicalJSON.PrettyWriter(blockSize: 64) { out.append(contentsOf: $0) }
                writer.write(Array(canonical[..<split]))
                writer.write(Array(canonical[split...]))
                writer.finish()
                #expect(out == expected, "offset \(offset), \(special.debugDescription), split at \(split)")
            }
        }
    }
}

/// A value of every shape the layout meets, built from `seed`: objects and arrays nested a few
/// levels, empty ones, strings with escapes and multi-byte characters, numbers of every length.
private indirect enum Shape: Encodable {
    case object([String: Shape]), array([Shape]), text(String), number(Double), integer(Int), flag(Bool)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .object(fields): try container.encode(fields)
        case let .array(items): try container.encode(items)
        case let .text(text): try container.encode(text)
        case let .number(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .flag(value): try container.encode(value)
        }
    }

    static func make(_ generator: inout some RandomNumberGenerator, depth: Int) -> Shape {
        let texts = ["", "plain", "with \"quotes\"", "back\\slash", "tab\tnew\nline", "é ✓", String(repeating: "long", count: 30), "{[,:]}"]
        switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &generator) {
        case 0: return .text(texts.randomElement(using: &generator)!)
        case 1: return .number(Double(Int.random(in: -100_000...100_000, using: &generator)) / 100)
        case 2: return .integer(Int.random(in: -5...1_800_000_000, using: &generator))
        case 3: return .flag(Bool.random(using: &generator))
        case 4, 5:
            let count = Int.random(in: 0..<8, using: &generator)
            // Keys of lower-case letters only: their canonical order is JSONEncoder's sorted order.
            return .object(Dictionary((0..<count).map { index in
                (String(repeating: "k", count: index + 1) + ["a", "b", "cd"].randomElement(using: &generator)!, make(&generator, depth: depth + 1))
            }, uniquingKeysWith: { first, _ in first }))
        default:
            return .array((0..<Int.random(in: 0..<10, using: &generator)).map { _ in make(&generator, depth: depth + 1) })
        }
    }
}


/// Documents of many kilobytes, laid out 64 bytes at a time where they allow it (and byte by byte
/// around escapes and in small blocks), are what JSONEncoder prints, whole and in pieces split
/// anywhere.
@Test func largeDocumentsOfEveryShapeAreLaidOutAsJSONEncoderPrintsThem() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var generator = SeededGenerator(seed: 7)
    for round in 0..<40 {
        let value = Shape.array((0..<60).map { _ in Shape.make(&generator, depth: 0) })
        let expected = [UInt8](try encoder.encode(value))
        let canonical = try CanonicalJSON.bytes(of: value, what: "test value")
        // Compared as one flag: a failure names the round, not both documents' bytes.
        let whole = CanonicalJSON.prettyPrinted(canonical) == expected
        #expect(whole, "round \(round)")
        for blockSize in [64, 4096, 1 << 16] {
            let splits = (0..<3).map { _ in Int.random(in: 0...canonical.count, using: &generator) }.sorted()
            var out: [UInt8] = []
            let writer = CanonicalJSON.PrettyWriter(blockSize: blockSize) { out.append(contentsOf: $0) }
            var start = 0
            for split in splits + [canonical.count] {
                writer.write(Array(canonical[start..<split]))
                start = split
            }
            writer.finish()
            let same = out == expected
            #expect(same, "round \(round), block \(blockSize), splits \(splits)")
        }
    }
}
