import BraceletStore
import Foundation
import Testing

/// `sync --kinds` refuses kinds that name nothing, so the list of operator events it knows
/// (``OutboxKindFilter/operatorEvents``) must hold every event the gateway raises.
@Test func everyOperatorEventTheGatewayRaisesIsAKindSyncKnows() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/BraceletGateway")
    var raised: Set<String> = []
    for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) where file.hasSuffix(".swift") {
        let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
        var rest = Substring(text)
        while let start = rest.range(of: "raise(\"") {
            rest = rest[start.upperBound...]
            if let end = rest.firstIndex(of: "\"") { raised.insert(String(rest[..<end])) }
        }
    }
    #expect(raised.count >= 5, "\(raised)")
    #expect(raised.isSubset(of: Set(OutboxKindFilter.operatorEvents)), "not in OutboxKindFilter.operatorEvents: \(raised.subtracting(OutboxKindFilter.operatorEvents))")
}
