import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

/// `summarize` prints the document through the canonical writer; its indented bytes must stay the
/// ones JSONEncoder wrote before (same keys, order, numbers and unescaped `/`), and the compact form
/// is exactly the canonical bytes that are stored and hashed.
@Suite struct SummaryDocumentJSONTests {
    func document() throws -> SummaryDocument {
        var slots: [Slot] = []
        for i in 0..<120 {
            let start: Int64 = at(8, 0) + Int64(i) * 60
            let breath: Double = 14.5 + Double(i % 3) / 4
            let skin: Double = 33.25 + Double(i % 5) / 10
            let eda: Double = 0.125 * Double(i % 9)
            let steps: Int? = i % 7 == 0 ? nil : i
            slots.append(slot(start, bpm: 60 + i % 50, breath: breath, steps: steps, active: 40 * i, skin: skin, core: 36.5,
                              spo2: 96, spo2Q: 3, eda: eda))
        }
        slots += stages(2, from: at(1, 0), to: at(3, 0)) + stages(3, from: at(3, 0), to: at(5, 0)) + stages(4, from: at(5, 0), to: at(6, 0))
        let engine = try engine(slots)
        let computed = engine.document()
        return SummaryDocument(timeZone: "America/New_York", days: computed.days, sleepSessions: computed.sleepSessions)
    }

    @Test func indentedDocumentIsWhatJSONEncoderWrote() throws {
        let document = try document()
        #expect(!document.days.isEmpty)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(document), as: UTF8.self)
        let written = String(decoding: try document.jsonData(prettyPrinted: true), as: UTF8.self)
        #expect(written == expected)
        #expect(written.contains("\"timeZone\" : \"America/New_York\""))
    }

    @Test func compactDocumentIsTheCanonicalBytes() throws {
        let document = try document()
        let compact = [UInt8](try document.jsonData(prettyPrinted: false))
        #expect(compact == (try CanonicalJSON.bytes(of: document, what: "the document")))
        #expect(String(decoding: compact, as: UTF8.self).contains("\"timeZone\":\"America/New_York\""))
        #expect(try JSONDecoder().decode(SummaryDocument.self, from: Data(compact)) == document)
    }
}
