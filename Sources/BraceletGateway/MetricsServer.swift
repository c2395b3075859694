import BraceletProtocol
import Foundation
import Glibc
import Synchronization

/// Serves the metrics text over HTTP/1.0 on a loopback address only (`127.0.0.1:PORT` or
/// `[::1]:PORT`): Prometheus scrapes `GET /metrics`; any other path is 404. One request per
/// connection, answered on the server's own thread; a client that sends nothing for 2 s is dropped.
public final class MetricsServer: Sendable {
    /// The port bound (the one asked for, or the kernel's choice for port 0).
    public let port: UInt16
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
        var bound: Int32
        if isV6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            a.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        if bound == 0 { bound = listen(fd, 16) }
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
        self.port = UInt16(raw[2]) << 8 | UInt16(raw[3])
        self.fd = fd
        self.render = render
        let server = self
        let thread = Thread { server.serve() }
        thread.start()
    }

    /// Stops serving (within 200 ms) and closes the socket.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func serve() {
        defer { close(fd) }
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            answer(client)
            close(client)
        }
    }

    private func answer(_ client: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2_048)
        let deadline = ContinuousClock.now + .seconds(2)
        while request.count < 16_384, !request.containsHeaderEnd {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return }
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left.milliseconds)) > 0 else { return }
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return }
            request.append(contentsOf: buffer[0..<n])
        }
        let line = String(decoding: request.prefix { $0 != 10 && $0 != 13 }, as: UTF8.self).split(separator: " ")
        let response: String
        if line.count >= 2, line[0] == "GET", line[1] == "/metrics" || line[1].hasPrefix("/metrics?") {
            let body = render()
            response = "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        } else {
            let body = "only GET /metrics is served here\n"
            response = "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        }
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            sent += n
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
