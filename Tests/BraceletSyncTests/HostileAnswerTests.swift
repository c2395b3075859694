import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// One answer a hostile receiver streams: what it writes first, what it repeats, and the reason the
/// attempt must fail with (after "network error talking to URL: ").
struct HostileAnswer: Sendable, CustomStringConvertible {
    var name: String
    var head: String
    var filler: String
    var reason: String
    var description: String { name }
}

/// Answers that once trapped the client (a negative length or chunk size used as a count) or that it
/// read on without end (a size line, headers or interim answers that never end): each is a failed,
/// retried attempt whose reason says what was wrong, and the client stops reading at its cap (the
/// receiver could write at most its socket buffers beyond it, far below the 512 MiB it offered).
@Test(arguments: [
    HostileAnswer(name: "negative Content-Length", head: "HTTP/1.1 500 Oops\r\nContent-Length: -1\r\n\r\n", filler: "a",
                  reason: "HTTP 500, but the receiver's answer is malformed: its Content-Length is \"-1\", not a count of bytes"),
    HostileAnswer(name: "negative Content-Length on a 2xx", head: "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", filler: "a",
                  reason: "HTTP 200, but the receiver's answer is malformed: its Content-Length is \"-5\", not a count of bytes"),
    HostileAnswer(name: "negative chunk size", head: "HTTP/1.1 502 Bad\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", filler: "a",
                  reason: "HTTP 502, but the receiver's answer is malformed: the chunk size \"-5\" is not a hexadecimal count of bytes"),
    HostileAnswer(name: "chunk-size line without end", head: "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n1;x=", filler: "a",
                  reason: "HTTP 503, but the receiver's answer is malformed: a chunk-size line longer than 4096 bytes"),
    HostileAnswer(name: "headers without end", head: "HTTP/1.1 500 Oops\r\n", filler: "X-Pad: a\r\n",
                  reason: "the answer's headers are larger than 64 KiB"),
    HostileAnswer(name: "interim answers without end", head: "", filler: "HTTP/1.1 100 Continue\r\n\r\n",
                  reason: "the answer's headers are larger than 64 KiB"),
])
func aHostileAnswerIsAFailedAttemptWithinTheCap(answer: HostileAnswer) async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "SN1", date: "2024-03-01", value: 1)
    let entry = try #require(try store.outboxEntries().first)
    let server = try TestHTTPServer { _, _ in .stream(head: answer.head, filler: answer.filler, bytes: 512 << 20) }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 30)
    let outcome = try await sink.deliver(entry)
    #expect(outcome == .transientFailure(reason: "network error talking to \(server.url): \(answer.reason)", httpStatus: nil))
    #expect(server.bodyBytesWritten < 64 << 20, "the client read \(server.bodyBytesWritten) bytes of the answer")
}

/// Many one-byte chunks: the refusal's reason still quotes the body, and the client stops at its
/// cap on the framing (it once kept every byte the receiver sent until the deadline).
@Test func endlessSmallChunksAreReadOnlyUpToTheCap() async throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "SN1", date: "2024-03-01", value: 1)
    let entry = try #require(try store.outboxEntries().first)
    let server = try TestHTTPServer { _, _ in
        .stream(head: "HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n", filler: "1;ext=padding-padding-padding\r\nz\r\n", bytes: 512 << 20)
    }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 30)
    let outcome = try await sink.deliver(entry)
    #expect(outcome == .transientFailure(reason: "HTTP 500 from \(server.url): " + String(repeating: "z", count: 200), httpStatus: 500))
    #expect(server.bodyBytesWritten < 64 << 20, "the client read \(server.bodyBytesWritten) bytes of the answer")
}

/// The framing rules themselves: lengths and chunk sizes are plain non-negative counts, a chunk must
/// end where its size says, and a complete chunked body is decoded whole.
@Test func answerFramingTakesOnlyPlainCounts() throws {
    #expect(try HTTPAnswerFraming(headers: ["content-length": " 12 "]) == .length(12))
    #expect(try HTTPAnswerFraming(headers: [:]) == .untilClose)
    #expect(try HTTPAnswerFraming(headers: ["transfer-encoding": "gzip, Chunked", "content-length": "-1"]) == .chunked)
    for bad in ["-1", "+3", "1e3", "", "0x10", "99999999999999999999", "5, 5"] {
        #expect(throws: HTTPFailure.self, "Content-Length \(bad)") { try HTTPAnswerFraming(headers: ["content-length": bad]) }
    }
    let decoded = try HTTPAnswerFraming.chunked.decode(Array("4;a=b\r\nWiki\r\nA\r\n0123456789\r\n0\r\n\r\n".utf8))
    #expect(String(decoding: decoded.body, as: UTF8.self) == "Wiki0123456789" && decoded.complete)
    let partial = try HTTPAnswerFraming.chunked.decode(Array("A\r\n01234".utf8))
    #expect(String(decoding: partial.body, as: UTF8.self) == "01234" && !partial.complete)
    #expect(throws: HTTPFailure.self) { try HTTPAnswerFraming.chunked.decode(Array("2\r\nabc\r\n".utf8)) }
    #expect(throws: HTTPFailure.self) { try HTTPAnswerFraming.chunked.decode(Array("-0\r\n".utf8)) }
    let length = try HTTPAnswerFraming.length(3).decode(Array("abcdef".utf8))
    #expect(Array(length.body) == Array("abc".utf8) && length.complete)
}
