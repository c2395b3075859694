import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server that accepts the login and then never answers: a TCP proxy on 127.0.0.1 in
/// front of a real server, which forwards the login (startup, authentication, parameters) and, from
/// the server's first ReadyForQuery on, forwards nothing more either way while keeping the
/// connection open, as a frozen server or network path does. Clients must not ask for TLS or GSS
/// encryption through it (`sslmode=disable&gssencmode=disable`), so that every server message is a
/// typed one.
final class StallingProxy: @unchecked Sendable {
    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var stalledCount = 0
    private var descriptors: [Int32] = []
    private var stopped = false

    /// Listens on a port of its own and forwards to 127.0.0.1:`upstreamPort`.
    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else { close(listener); throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// Connections that logged in and now hang.
    var stalled: Int { lock.withLock { stalledCount } }

    /// Closes everything (the clients then see their connection end).
    func stop() {
        let open = lock.withLock { () -> [Int32] in
            defer { stopped = true; descriptors = [] }
            return stopped ? [] : descriptors + [listener]
        }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        // The accept loop closes the listener when it leaves (a shut-down listener makes it leave).
    }

    private func track(_ fd: Int32) -> Bool {
        lock.withLock {
            if !stopped { descriptors.append(fd) }
            return !stopped
        }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { if errno == EINTR { continue } else { return } }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = upstreamPort.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0, track(client), track(upstream) else {
                close(client)
                close(upstream)
                continue
            }
            let stall = StallFlag()
            // Whichever copy ends first shuts both sockets down, so the other ends too; the last closes them.
            let finish = { @Sendable in
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(upstream, Int32(SHUT_RDWR))
                if stall.finishOne() {
                    self.lock.withLock { self.descriptors.removeAll { $0 == client || $0 == upstream } }
                    close(client)
                    close(upstream)
                }
            }
            Thread.detachNewThread { [self] in copyClientToServer(client, upstream, stall); finish() }
            Thread.detachNewThread { [self] in copyServerToClient(upstream, client, stall); finish() }
        }
    }

    /// Client bytes go to the server until the stall; after it they are read and dropped.
    private func copyClientToServer(_ client: Int32, _ upstream: Int32, _ stall: StallFlag) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            if !stall.isSet { writeAll(upstream, Array(buffer[..<count])) }
        }
    }

    /// Server messages go to the client one whole message at a time, up to and including the first
    /// ReadyForQuery ('Z'); then nothing more.
    private func copyServerToClient(_ upstream: Int32, _ client: Int32, _ stall: StallFlag) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(upstream, &buffer, buffer.count)
            guard count > 0 else { return }
            guard !stall.isSet else { continue }
            pending.append(contentsOf: buffer[..<count])
            while pending.count >= 5 {
                let length = Int(pending[1]) << 24 | Int(pending[2]) << 16 | Int(pending[3]) << 8 | Int(pending[4])
                guard pending.count >= 1 + length else { break }
                let message = Array(pending[..<(1 + length)])
                pending.removeFirst(1 + length)
                writeAll(client, message)
                if message[0] == UInt8(ascii: "Z") {
                    stall.set()
                    lock.withLock { stalledCount += 1 }
                    break
                }
            }
        }
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

/// One proxied connection's state: whether it stalled, and how many of its two copies ended.
private final class StallFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    private var finished = 0
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
    /// Counts one copy as ended; true for the second.
    func finishOne() -> Bool { lock.withLock { finished += 1; return finished == 2 } }
}
