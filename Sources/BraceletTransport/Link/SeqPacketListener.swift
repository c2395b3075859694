import CBlueZ
import Glibc

/// A listening Unix SOCK_SEQPACKET socket: how a simulated bracelet offers the same PDUs an L2CAP
/// ATT channel would carry. Removes a stale socket file at `path` before binding.
public final class SeqPacketListener {
    /// The listening descriptor, -1 once closed.
    public private(set) var descriptor: Int32
    /// The socket's path.
    public let path: String

    /// Binds and listens at `path`.
    public init(unixPath path: String, backlog: Int32 = 4) throws(LinkError) {
        self.path = path
        var address = try UnixSocketAddress(path: path)
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw .system(operation: "socket(AF_UNIX, SOCK_SEQPACKET)", errno: errno) }
        _ = unlink(path)
        if address.withSockaddr({ bind(fd, $0, $1) }) < 0 {
            let code = errno
            Glibc.close(fd)
            throw .system(operation: "binding unix:\(path)", errno: code)
        }
        if listen(fd, backlog) < 0 {
            let code = errno
            Glibc.close(fd)
            throw .system(operation: "listening on unix:\(path)", errno: code)
        }
        descriptor = fd
    }

    deinit { close() }

    /// Waits up to `timeout` for a client; returns its connected descriptor (adopt it with
    /// ``SeqPacketSocket/init(adopting:)``) or `nil` when none came.
    public func accept(timeout: Duration) throws(LinkError) -> Int32? {
        guard descriptor >= 0 else { throw .closed }
        var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, Int32(max(0, timeout.milliseconds)))
        if ready < 0 { if errno == EINTR { return nil }; throw .system(operation: "waiting for a client", errno: errno) }
        if ready == 0 { return nil }
        let fd = Glibc.accept(descriptor, nil, nil)
        if fd < 0 {
            if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { return nil }
            throw .system(operation: "accepting a client on unix:\(path)", errno: errno)
        }
        return fd
    }

    /// Stops listening and removes the socket file.
    public func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
            _ = unlink(path)
        }
    }
}
