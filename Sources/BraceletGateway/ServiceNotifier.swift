import Glibc

/// Tells systemd how the service is doing (sd_notify(3)): one datagram per message to the Unix
/// socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Without
/// `$NOTIFY_SOCKET` (not under systemd) every call does nothing.
public struct ServiceNotifier: Sendable {
    /// The socket's address text, as systemd gave it.
    public let socketPath: String?
    /// Half the watchdog interval from `$WATCHDOG_USEC` (how often to send `WATCHDOG=1`), when set.
    public let watchdogMilliseconds: Int64?

    /// A notifier for the process's environment (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`, `$WATCHDOG_PID`).
    public init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // WATCHDOG_PID, when set, names the process the watchdog is meant for.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 {
            watchdogMilliseconds = max(1, usec / 2_000)
        } else {
            watchdogMilliseconds = nil
        }
    }

    /// Sends `message` (e.g. `READY=1\nSTATUS=...`); returns whether it was sent (false without a socket).
    @discardableResult
    public func notify(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), $0, length) }
        }
        return sent == bytes.count
    }
}
