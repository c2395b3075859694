import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 written with POSIX sockets, one thread per connection, for
/// testing the webhook sink against real TCP. Every answer closes the connection.
final class TestHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Header names lowercased.
        var headers: [String: String]
        var body: Data
    }

    enum Action: Sendable {
        /// Answer with this status and body.
        case respond(status: Int, body: String)
        /// Read the request, say nothing for this long, then close.
        case hang(seconds: Double)
        /// Write these bytes (not HTTP) and close.
        case garbage(String)
        /// Answer with this status and headers (a redirect's `Location`), and a short body.
        case respondWithHeaders(status: Int, headers: [String: String], body: String)
        /// Answer with this status and a body of `bytes` bytes, written as long as the client reads.
        case hugeBody(status: Int, bytes: Int)
        /// Write `head` as it is, then `filler` again and again, `bytes` bytes in all, as long as the
        /// client reads: an answer whose headers, chunk-size line or interim answers never end.
        case stream(head: String, filler: String, bytes: Int)
    }

    let port: UInt16
    private let listenFD: Int32
    private let handler: @Sendable (Request, Int) -> Action
    private let lock = NSLock()
    private var received: [Request] = []
    private var stopped = false
    private var written = 0
    private let readsBody: Bool

    /// Starts listening on `port` (0: one the kernel picks); `handler` gets each request and its
    /// 0-based index.
    /// With `readsBody` false it answers as soon as it has the headers, never reading the body (a
    /// receiver that answers before it received what was sent).
    init(port: UInt16 = 0, readsBody: Bool = true, handler: @escaping @Sendable (Request, Int) -> Action) throws {
        self.handler = handler
        self.readsBody = readsBody
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        listenFD = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: String { "http://127.0.0.1:\(port)/bracelet" }

    /// Every request received so far.
    var requests: [Request] { lock.withLock { received } }

    /// Bytes of `hugeBody` answers written so far (what the clients read, plus socket buffers).
    var bodyBytesWritten: Int { lock.withLock { written } }

    /// Stops listening. Safe to call twice. The socket is only shut down here; the accept thread
    /// closes it when it leaves, so its number cannot be reused (say by an SQLite database or another
    /// test's server) while that thread may still call accept on it.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listenFD) }
        while true {
            let client = accept(listenFD, nil, nil)
            if lock.withLock({ stopped }) {
                if client >= 0 { close(client) }
                return
            }
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = readRequest(client) else { return }
        let index = lock.withLock { () -> Int in
            received.append(request)
            return received.count - 1
        }
        switch handler(request, index) {
        case let .respond(status, body):
            let bytes = Array(body.utf8)
            let head = "HTTP/1.1 \(status) Status\r\nContent-Type: text/plain\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
            writeAll(client, Array(head.utf8) + bytes)
        case let .hang(seconds):
            Thread.sleep(forTimeInterval: seconds)
        case let .garbage(text):
            writeAll(client, Array(text.utf8))
        case let .respondWithHeaders(status, headers, body):
            let bytes = Array(body.utf8)
            let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
            let head = "HTTP/1.1 \(status) Status\r\n\(extra)Content-Type: text/plain\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
            writeAll(client, Array(head.utf8) + bytes)
        case let .hugeBody(status, total):
            let head = "HTTP/1.1 \(status) Status\r\nContent-Type: text/plain\r\nContent-Length: \(total)\r\nConnection: close\r\n\r\n"
            writeAll(client, Array(head.utf8))
            stream(client, [UInt8](repeating: 0x61, count: 65_536), bytes: total)
        case let .stream(head, filler, total):
            writeAll(client, Array(head.utf8))
            let unit = Array(filler.utf8)
            stream(client, Array((0..<max(1, 65_536 / max(1, unit.count))).map { _ in unit }.joined()), bytes: total)
        }
    }

    /// Writes `chunk` again and again, `total` bytes in all, until the client stops reading (or
    /// closes); counts what was written in ``bodyBytesWritten``.
    private func stream(_ client: Int32, _ chunk: [UInt8], bytes total: Int) {
        var sent = 0
        while sent < total {
            let count = min(chunk.count, total - sent)
            let done = chunk.withUnsafeBytes { send(client, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
            if done <= 0 { break }
            sent += done
            lock.withLock { written += done }
        }
    }

    private func readRequest(_ client: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if headerEnd == nil, let range = find(separator, in: buffer) {
                headerEnd = range
                let head = String(decoding: buffer[..<range], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let end = headerEnd, !readsBody || buffer.count >= end + 4 + contentLength { break }
            let count = read(client, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
        guard let end = headerEnd else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let requestLine = (lines.first ?? "").split(separator: " ").map(String.init)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let body = readsBody ? Data(buffer[(end + 4)..<(end + 4 + contentLength)]) : Data()
        return Request(method: requestLine.first ?? "", path: requestLine.count > 1 ? requestLine[1] : "", headers: headers, body: body)
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }
}
