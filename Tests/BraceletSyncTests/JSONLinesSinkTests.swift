import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

@Test func jsonLinesSinkAppendsOneParsableLinePerEntry() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    try enqueue(store, device: "A", date: "2024-03-01", value: 2)
    try enqueue(store, device: "B", date: "2024-03-01", value: 7)
    let path = folder.path("out.jsonl")
    // A previous writer died mid-line: the sink starts on a fresh line.
    try Data(#"{"key":"half"#.utf8).write(to: URL(fileURLWithPath: path))
    let sink = try JSONLinesSink(path: path)
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(), clock: ManualClock(start: Store.systemMilliseconds()))
    #expect(try await forwarder.drain().delivered == 3)
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.count == 4)
    #expect(lines[0] == #"{"key":"half"#)
    let keys = try lines.dropFirst().map { line -> String in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["key"] as? String)
    }
    #expect(keys.sorted() == ["A/2024-03-01/daily/v1", "A/2024-03-01/daily/v2", "B/2024-03-01/daily/v1"])
    #expect(keys.filter { $0.hasPrefix("A/") } == ["A/2024-03-01/daily/v1", "A/2024-03-01/daily/v2"], "in order per device")
}

@Test func gzipJSONLinesAreOneMemberPerLineThatZcatReadsAsThePlainLines() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "A", date: "2024-03-01", value: 1)
    try enqueue(store, device: "B", date: "2024-03-01", value: 7)
    let plainPath = folder.path("out.jsonl"), gzipPath = folder.path("out.jsonl.gz")
    let entries = try store.outboxEntries()
    let plain = try JSONLinesSink(path: plainPath), gzip = try JSONLinesSink(path: gzipPath, gzip: true)
    for entry in entries {
        #expect(try await plain.deliver(entry) == .delivered(httpStatus: nil))
        #expect(try await gzip.deliver(entry) == .delivered(httpStatus: nil))
    }
    let compressed = try Data(contentsOf: URL(fileURLWithPath: gzipPath))
    #expect(compressed.count < (try Data(contentsOf: URL(fileURLWithPath: plainPath))).count)
    // The real reader: zcat, over the concatenated members.
    let zcat = Process()
    zcat.executableURL = URL(fileURLWithPath: "/bin/zcat")
    zcat.arguments = [gzipPath]
    let pipe = Pipe()
    zcat.standardOutput = pipe
    try zcat.run()
    let read = pipe.fileHandleForReading.readDataToEndOfFile()
    zcat.waitUntilExit()
    #expect(zcat.terminationStatus == 0)
    #expect(read == (try Data(contentsOf: URL(fileURLWithPath: plainPath))))
    #expect(String(decoding: read, as: UTF8.self).split(separator: "\n").count == 2)
}

@Test func jsonLinesSinkRefusesAnUnwritablePath() throws {
    let folder = try TemporaryFolder()
    #expect {
        try JSONLinesSink(path: folder.path("missing/dir/out.jsonl"))
    } throws: { error in
        "\(error)".contains("cannot open") && "\(error)".contains("No such file")
    }
}
