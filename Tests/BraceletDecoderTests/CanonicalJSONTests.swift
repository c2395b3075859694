import Foundation
import Testing
@testable import BraceletDecoder

/// The canonical writer against Foundation's round trip (JSONEncoder, then JSONSerialization with
/// sorted keys), which produced every content hash stored before the writer existed.
enum FoundationCanonical {
    static func bytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(value), options: [.fragmentsAllowed])
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]))
    }
}

/// Shaped like the summary types: nested groups, nulls, arrays of objects, camel-case keys whose
/// Foundation order is not their byte order.
struct GoldenDay: Codable, Equatable, Sendable {
    struct Group: Codable, Equatable, Sendable {
        var averageBPM: Int?
        var maxDayBPM: Int?
        var a10: Int
        var a9: Int
        var a_b: Double
        var aB: Double
        var ab: Double
    }
    struct Slot: Codable, Equatable, Sendable { var intervalDate: Int64; var bpm: Int }
    var date: String
    var dayStart: Int64
    var note: String
    var bpm: Group
    var temperatures: [Double]
    var slots: [Slot]
    var flag: Bool
    var missing: Nullable<Int>

    struct Nullable<V: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var value: V?
        init(_ value: V?) { self.value = value }
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            value = c.decodeNil() ? nil : try c.decode(V.self)
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            if let value { try c.encode(value) } else { try c.encodeNil() }
        }
    }

    static let known = GoldenDay(
        date: "2026-06-15", dayStart: 1_781_474_400, note: "tab\there \"quoted\" back\\slash / é \u{1}",
        bpm: Group(averageBPM: 64, maxDayBPM: nil, a10: 10, a9: 9, a_b: 0.1, aB: -0.0, ab: 3.0),
        temperatures: [36.5, 1e-05, 1e16, 123_456_789.123, 0.3, -2.75, 100],
        slots: [Slot(intervalDate: 1_781_474_400, bpm: 58), Slot(intervalDate: 1_781_474_460, bpm: 61)],
        flag: true, missing: Nullable(nil))
}

@Test func theCanonicalBytesOfAKnownValueArePinned() throws {
    let bytes = try CanonicalJSON.bytes(of: GoldenDay.known, what: "golden")
    let golden = #"{"bpm":{"a_b":0.1,"a9":9,"a10":10,"ab":3,"aB":0,"averageBPM":64},"date":"2026-06-15","dayStart":1781474400,"flag":true,"missing":null,"note":"tab\there \"quoted\" back\\slash / é \u0001","slots":[{"bpm":58,"intervalDate":1781474400},{"bpm":61,"intervalDate":1781474460}],"temperatures":[36.5,1e-05,1e+16,123456789.123,0.3,-2.75,100]}"#
    #expect(String(decoding: bytes, as: UTF8.self) == golden)
    // Its content hash is pinned next to the store's SHA-256 (SHA256Tests).
    // The same bytes as the Foundation round trip that wrote every hash stored so far.
    #expect(bytes == (try FoundationCanonical.bytes(GoldenDay.known)))
}

@Test func canonicalizingParsedJSONGivesTheSameBytesAsEncoding() throws {
    let encoder = JSONEncoder()
    let json = try encoder.encode(GoldenDay.known)
    let canonical = try CanonicalJSON.canonicalize(json, what: "golden")
    #expect([UInt8](canonical) == (try CanonicalJSON.bytes(of: GoldenDay.known, what: "golden")))
}

/// Summary numbers are rounded measurements (a few decimals, magnitudes up to millions). Tiny
/// magnitudes (below 1e-4) are left out on purpose: Foundation's writer prints them in plain decimal
/// (`0.00001708779811389759`) where this writer prints the shortest round-trip form (`1.708779811389759e-05`);
/// no summary value is that small.
@Test func numbersAreFormattedLikeTheFoundationRoundTrip() throws {
    var generator = SystemRandomNumberGenerator()
    var values: [Double] = [0, -0.0, 1, -1, 0.5, 0.001, 1e15, 1.5e15, 9.5e15, 1e16, 1e21, 36.6, 14.25, 0.1 + 0.2]
    for _ in 0..<5000 {
        let scale = [1.0, 10, 100, 1000, 10000][Int.random(in: 0...4, using: &generator)]
        values.append(Double(Int.random(in: -100_000_000...100_000_000, using: &generator)) / scale)
    }
    let floats: [Float] = [0.1, 36.6, 3, -0.0, 123.456]
    struct Numbers: Encodable { var doubles: [Double]; var floats: [Float]; var ints: [Int64]; var small: [UInt8] }
    let value = Numbers(doubles: values, floats: floats, ints: [0, -1, Int64.max, Int64.min + 1, 42], small: [0, 255])
    #expect(try CanonicalJSON.bytes(of: value, what: "numbers") == (try FoundationCanonical.bytes(value)))
}

@Test func keysAreOrderedLikeFoundationSortedKeys() throws {
    let keys = ["a_b", "aB", "ab", "a10", "a9", "Z", "_x", "Ab", "b", "AB", "a", "zone2", "zone10", "é", "e", "f", "Éa",
                "x-y", "x_y", "xY", "x.y", "x1", "X", "totalSecsREM", "totalSecsRem", "sleepHRV", "sleepEfficiency"]
    let dictionary = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    #expect(try CanonicalJSON.bytes(of: dictionary, what: "keys") == (try FoundationCanonical.bytes(dictionary)))
}

@Test func nonFiniteNumbersAreAnErrorThatSaysWhere() throws {
    struct Bad: Encodable { var breath: [Double] }
    #expect {
        _ = try CanonicalJSON.bytes(of: Bad(breath: [1, .nan]), what: "bad")
    } throws: { error in
        "\(error)".contains("breath") && "\(error)".contains("nil")
    }
}

@Test func jsonGivenAsBytesKeepsItsNumbersDigitForDigit() throws {
    // JSONEncoder's shortest digits read back as the same Double and are written the same way.
    let json = #"{"breathingRate": 13.535909090909088, "b": [1, -0, 2.50, 1E3, 18446744073709551615], "a": {"z": null, "y": true}, "s": "\u00e9\ud83d\ude00\/\n"}"#
    let canonical = try CanonicalJSON.canonicalize(Data(json.utf8), what: "test")
    #expect(String(decoding: canonical, as: UTF8.self)
        == #"{"a":{"y":true,"z":null},"b":[1,0,2.5,1000,18446744073709551615],"breathingRate":13.535909090909088,"s":"é😀/\n"}"#)
}

@Test func malformedJSONIsRefusedWithWhereItWentWrong() throws {
    for bad in ["", "42", "\"text\"", "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "{\"a\":\"\u{1}\"}", "[NaN]", "{\"a\":1} x", "[\"\\ud800\"]"] {
        #expect(throws: CanonicalJSONError.self, "\(bad)") { try CanonicalJSON.canonicalize(Data(bad.utf8), what: "test") }
    }
}

/// The byte primitives that JSON Lines writers use write what the tree writer writes for the same
/// values (`null`, integers, escapes), and a Double as its `description`.
@Suite struct CanonicalJSONPrimitiveTests {
    @Test func arrayAndPointerFormsAgree() {
        var out: [UInt8] = []
        CanonicalJSON.appendLiteral("{\"a\":", to: &out)
        CanonicalJSON.append(Int64(-42), to: &out)
        CanonicalJSON.appendLiteral(",\"b\":", to: &out)
        CanonicalJSON.append(nil, to: &out)
        CanonicalJSON.appendLiteral(",\"c\":", to: &out)
        CanonicalJSON.appendString("x/\"y\"\n\u{1}", to: &out)
        CanonicalJSON.appendLiteral("}", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"a":-42,"b":null,"c":"x/\"y\"\n\u0001"}"#)

        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        var p = CanonicalJSON.writeLiteral("[", to: buffer)
        p = CanonicalJSON.write(7, to: p)
        p = CanonicalJSON.writeLiteral(",", to: p)
        p = CanonicalJSON.write(nil, to: p)
        p = CanonicalJSON.writeLiteral(",", to: p)
        p = CanonicalJSON.writeDescription(36.0, to: p)
        p = CanonicalJSON.writeLiteral(",", to: p)
        p = CanonicalJSON.writeDescription(0.00001, to: p)
        p = CanonicalJSON.writeLiteral(",", to: p)
        p = CanonicalJSON.writeDescription(nil, to: p)
        p = CanonicalJSON.writeLiteral("]", to: p)
        #expect(String(decoding: UnsafeBufferPointer(start: buffer, count: p - buffer), as: UTF8.self) == "[7,null,36.0,1e-05,null]")
    }

    @Test func refusalsAreTheWritersOwnError() {
        #expect(throws: CanonicalJSONError.self) { try CanonicalJSON.bytes(of: [Double.nan], what: "a NaN") }
        do {
            _ = try CanonicalJSON.bytes(of: ["x": Double.infinity], what: "a value")
            Issue.record("infinity was written")
        } catch {
            #expect("\(error)".contains("never NaN or infinity"))
        }
    }
}
