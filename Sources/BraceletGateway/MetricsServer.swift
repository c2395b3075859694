import BraceletProtocol
import Foundation
import Glibc
import Synchronization

/// Serves the metrics text over HTTP/1.0 on a loopback address only (`127.0.0.1:PORT` or
/// `[::1]:PORT`): Prometheus scrapes `GET /metrics`; any other path is 404. One request per
/// connection.
///
/// Connections are served side by side by one thread that polls them all: a client that connects
/// and then sends slowly, or nothing at all, holds up no other. Each connection has 2 s to send its
/// request and 2 s to take the answer, then it is closed; at most ``connectionLimit`` are open at
/// once, and a new one beyond that closes the open one nearest its deadline, so a scrape is answered
/// even while the limit is taken by idle connections.
public final class MetricsServer: Sendable {
    /// The port bound (the one asked for, or the kernel's choice for port 0).
    public let port: UInt16
    /// Where to scrape: `http://127.0.0.1:PORT/metrics` or `http://[::1]:PORT/metrics`.
    public let url: String
    /// Connections open at once, at most.
    public static let connectionLimit = 64
    /// How long a connection may take to send its request, and then to take the answer.
    public static let connectionDeadline: Duration = .seconds(2)
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let render: @Sendable () -> String

    /// Binds `address` (refused unless it is loopback) and starts serving `render()`'s text.
    ///
    /// - Throws: ``GatewayError/metricsAddress(_:)`` for a non-loopback or unreadable address,
    ///   ``GatewayError/metricsSocket(_:)`` when the port cannot be bound.
    public init(address: String, render: @escaping @Sendable () -> String) throws(GatewayError) {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw .metricsAddress(address)
        }
        let host = String(address[..<colon])
        let isV6 = host == "[::1]"
        guard isV6 || host == "127.0.0.1" || host == "localhost" else { throw .metricsAddress(address) }
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .metricsSocket(String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound = Self.withLoopbackAddress(v6: isV6, port: port) { bind(fd, $0, $1) }
        // A backlog above the connection limit: a burst of connections waits in the kernel for the
        // next turn of the loop instead of having its handshakes dropped (a retry costs 1 s).
        if bound == 0 { bound = listen(fd, 256) }
        // Non-blocking: the loop accepts until none is waiting.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .metricsSocket("\(address): \(reason)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let raw = withUnsafeBytes(of: storage) { Array($0) }
        // sin_port and sin6_port both sit right after the 2-byte family, in network order.
        let bound16 = UInt16(raw[2]) << 8 | UInt16(raw[3])
        self.port = bound16
        self.url = "http://\(isV6 ? "[::1]" : "127.0.0.1"):\(bound16)/metrics"
        self.fd = fd
        self.render = render
        let server = self
        let thread = Thread { server.serve() }
        thread.start()
    }

    /// Calls `body` with the loopback address (`127.0.0.1`, or `::1` with `v6`) and `port`, as a
    /// socket address and its length for `bind` or `connect`.
    package static func withLoopbackAddress<T>(v6: Bool, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            a.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }

    /// Stops serving (within 200 ms) and closes the socket and every connection.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// One client connection: what it sent so far, then the answer still to send.
    private struct Connection {
        let fd: Int32
        var deadline: ContinuousClock.Instant
        var request: [UInt8] = []
        var answer: [UInt8]?
        var sent = 0
    }

    private func serve() {
        var connections: [Connection] = []
        defer {
            for connection in connections { close(connection.fd) }
            close(fd)
        }
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while !stopped.load(ordering: .relaxed) {
            let now = ContinuousClock.now
            connections.removeAll { connection in
                guard connection.deadline <= now else { return false }
                close(connection.fd)
                return true
            }
            var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            for connection in connections {
                pollers.append(pollfd(fd: connection.fd, events: Int16(connection.answer == nil ? POLLIN : POLLOUT), revents: 0))
            }
            let nearest = connections.map(\.deadline).min().map { now.duration(to: $0) } ?? .milliseconds(200)
            let wait = Int32(max(1, min(200, nearest.milliseconds + 1)))
            guard poll(&pollers, nfds_t(pollers.count), wait) > 0 else { continue }
            // Connections first (by index, before any is removed), then new ones.
            var finished: Set<Int32> = []
            for (index, poller) in pollers.enumerated().dropFirst() where poller.revents != 0 {
                if !progress(&connections[index - 1], buffer: &buffer) { finished.insert(poller.fd) }
            }
            connections.removeAll { connection in
                guard finished.contains(connection.fd) else { return false }
                close(connection.fd)
                return true
            }
            if pollers[0].revents & Int16(POLLIN) != 0 { acceptAll(into: &connections) }
        }
    }

    /// Accepts every connection waiting; beyond the limit, the open one nearest its deadline is closed.
    private func acceptAll(into connections: inout [Connection]) {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            if connections.count >= Self.connectionLimit, let oldest = connections.indices.min(by: { connections[$0].deadline < connections[$1].deadline }) {
                close(connections[oldest].fd)
                connections.remove(at: oldest)
            }
            connections.append(Connection(fd: client, deadline: ContinuousClock.now + Self.connectionDeadline))
        }
    }

    /// Reads or writes what the connection is ready for; false when it is done (answered, closed by
    /// the client, or sent a request too long to be one).
    private func progress(_ connection: inout Connection, buffer: inout [UInt8]) -> Bool {
        if connection.answer == nil {
            let n = recv(connection.fd, &buffer, buffer.count, 0)
            if n < 0 { return errno == EAGAIN || errno == EINTR }
            guard n > 0 else { return false }
            connection.request.append(contentsOf: buffer[0..<n])
            guard connection.request.containsHeaderEnd else { return connection.request.count < 16_384 }
            connection.answer = answer(to: connection.request)
            connection.deadline = ContinuousClock.now + Self.connectionDeadline
        }
        guard let answer = connection.answer else { return true }
        while connection.sent < answer.count {
            let n = answer[connection.sent...].withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 { return errno == EAGAIN || errno == EINTR }
            connection.sent += n
        }
        return false
    }

    /// The response to one request.
    private func answer(to request: [UInt8]) -> [UInt8] {
        let line = String(decoding: request.prefix { $0 != 10 && $0 != 13 }, as: UTF8.self).split(separator: " ")
        let response: String
        if line.count >= 2, line[0] == "GET", line[1] == "/metrics" || line[1].hasPrefix("/metrics?") {
            let body = render()
            response = "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        } else {
            let body = "only GET /metrics is served here\n"
            response = "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        }
        return Array(response.utf8)
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
