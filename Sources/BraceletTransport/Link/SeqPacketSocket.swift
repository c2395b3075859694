import CBlueZ
import Glibc

/// One frame read from a sequenced-packet socket.
public struct ReceivedFrame: Sendable, Hashable {
    /// The bytes read (at most the receive capacity).
    public var bytes: [UInt8]
    /// The frame's real length; larger than `bytes.count` when the frame was cut to fit.
    public var originalLength: Int
    /// Whether the frame was longer than the receive capacity.
    public var wasTruncated: Bool { originalLength > bytes.count }
}

/// An owned SOCK_SEQPACKET file descriptor: a BlueZ L2CAP socket on the ATT channel or a Unix
/// socket to a simulated bracelet. Every frame is one ATT PDU. Closed on ``close()`` or deinit.
///
/// Not thread-safe: one thread sends and receives.
public final class SeqPacketSocket {
    /// The file descriptor, -1 once closed.
    public private(set) var descriptor: Int32

    /// Takes ownership of a connected SOCK_SEQPACKET descriptor.
    public init(adopting descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { descriptor < 0 }

    /// Closes the descriptor; the peer sees the link drop. Safe to call twice.
    public func close() {
        if descriptor >= 0 {
            _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// A connected pair of Unix sequenced-packet sockets (for tests and in-process peers); returns
    /// the two raw descriptors so each can be adopted on its own thread.
    public static func pairDescriptors() throws(LinkError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let result = fds.withUnsafeMutableBufferPointer {
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, $0.baseAddress)
        }
        if result < 0 { throw .system(operation: "socketpair(AF_UNIX, SOCK_SEQPACKET)", errno: errno) }
        return (fds[0], fds[1])
    }

    /// Connects to a Unix sequenced-packet socket at `path` (e.g. `bracelet simulate --serve unix:PATH`).
    public static func connect(unixPath path: String) throws(LinkError) -> SeqPacketSocket {
        var address = try UnixSocketAddress(path: path)
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw .system(operation: "socket(AF_UNIX, SOCK_SEQPACKET)", errno: errno) }
        let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if result < 0 {
            let code = errno
            Glibc.close(fd)
            throw .system(operation: "connecting to unix:\(path)", errno: code)
        }
        return SeqPacketSocket(adopting: fd)
    }

    /// Sends one frame. Throws ``LinkError/closed`` when the peer is gone.
    public func send(_ bytes: [UInt8]) throws(LinkError) {
        guard descriptor >= 0 else { throw .closed }
        while true {
            let n = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n >= 0 { return }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN {
                // Non-blocking socket with a full buffer: wait until writable.
                var pfd = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 1_000)
                continue
            }
            throw LinkError.fromErrno(code, operation: "sending a frame")
        }
    }

    /// Waits up to `timeout` for one frame; `nil` when none arrived in time. Frames longer than
    /// `capacity` are cut and flagged (``ReceivedFrame/wasTruncated``). Throws ``LinkError/closed``
    /// when the peer closed the link.
    ///
    /// A frame already queued is taken without waiting: during a transfer the next notification is
    /// nearly always there, and asking `poll` first doubled the system calls of a backfill (one
    /// 244-byte frame each, 44 000 of them for 30 days).
    public func receive(capacity: Int = 1_024, timeout: Duration) throws(LinkError) -> ReceivedFrame? {
        guard descriptor >= 0 else { throw .closed }
        if let frame = try receiveQueued(capacity: capacity) { return frame }
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(max(0, remaining.milliseconds)))
            if ready < 0 {
                if errno == EINTR { if remaining <= .zero { return nil }; continue }
                throw .system(operation: "waiting for a frame", errno: errno)
            }
            if ready == 0 { return nil }
            if let frame = try receiveQueued(capacity: capacity) { return frame }
        }
    }

    /// The frame waiting on the socket, without blocking; `nil` when none is queued.
    private func receiveQueued(capacity: Int) throws(LinkError) -> ReceivedFrame? {
        let capacity = max(1, capacity)
        while true {
            var n = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                n = Glibc.recv(descriptor, buffer.baseAddress, capacity, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
                count = max(0, min(n, capacity))
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return nil }
                throw LinkError.fromErrno(code, operation: "receiving a frame")
            }
            // A zero-length read on SOCK_SEQPACKET is the peer's orderly shutdown.
            if n == 0 { throw .closed }
            return ReceivedFrame(bytes: bytes, originalLength: n)
        }
    }
}

/// A `sockaddr_un` built from a path, checked for length.
struct UnixSocketAddress {
    var storage = sockaddr_un()

    init(path: String) throws(LinkError) {
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw .invalidAddress("unix:" + path) }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
    }

    mutating func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
