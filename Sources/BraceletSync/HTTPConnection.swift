import CTLS
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why an HTTP exchange ended without an answer.
enum HTTPFailure: Error, Equatable {
    /// The deadline passed.
    case timedOut
    /// The caller gave up (the process is stopping).
    case cancelled
    /// The network: no connection, a connection closed early, an answer that is not HTTP.
    case network(String)
    /// TLS: the receiver's certificate or handshake was refused.
    case tls(TLSProblem)
}

/// What went wrong with TLS, in OpenSSL's words.
enum TLSProblem: Sendable, Equatable {
    /// The certificate check failed (expired, self-signed, unknown CA, ...).
    case certificateRefused(String)
    /// The certificate is valid but for other names or addresses than the URL's host.
    case otherName(String)
    /// The handshake failed before a certificate was checked (not TLS, no common version, ...).
    case handshake(String)
    /// OpenSSL on this host could not be set up (no context, no session, no trust store, a check it
    /// refused to configure): nothing the receiver can fix.
    case setup(String)

    /// OpenSSL's words, without the kind.
    var text: String {
        switch self {
        case let .certificateRefused(text), let .otherName(text), let .handshake(text), let .setup(text): text
        }
    }
}

/// One TCP connection (and TLS over it, when asked) with a deadline for everything it waits on and
/// an interrupt that ends any wait at once. Non-blocking sockets and `poll(2)`: no wait can outlast
/// the deadline, whatever the peer does.
final class HTTPConnection {
    private var fd: Int32 = -1
    private var tls: OpaquePointer?
    private let deadline: ContinuousClock.Instant
    private let interrupt: WaitInterrupt

    init(deadline: ContinuousClock.Instant, interrupt: WaitInterrupt) {
        self.deadline = deadline
        self.interrupt = interrupt
    }

    deinit {
        if let tls { SSL_free(tls) }
        if fd >= 0 { close(fd) }
    }

    /// Connects to `host`:`port`, trying each address the name resolves to until one answers.
    func connect(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        // Name resolution blocks (bounded by the resolver's own timeouts); the caller's deadline
        // does not wait for it.
        let status = getaddrinfo(host, String(port), &hints, &found)
        try checkInterrupt()
        guard status == 0, let found else {
            throw HTTPFailure.network("host \(host) not found (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(found) }
        var lastError = "no address"
        var address: UnsafeMutablePointer<addrinfo>? = found
        while let current = address {
            address = current.pointee.ai_next
            let socket = Glibc.socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                                      current.pointee.ai_protocol)
            guard socket >= 0 else { lastError = String(cString: strerror(errno)); continue }
            if Glibc.connect(socket, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                do {
                    try wait(socket, for: Int16(POLLOUT))
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 {
                        var yes: Int32 = 1
                        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                        fd = socket
                        return
                    }
                    lastError = error == ECONNREFUSED ? "connection refused (is the receiver running?)" : String(cString: strerror(error))
                } catch {
                    close(socket)
                    throw error
                }
            } else {
                lastError = String(cString: strerror(errno))
            }
            close(socket)
        }
        throw HTTPFailure.network(lastError)
    }

    /// Starts TLS with `context`, checking that the certificate is valid for `host` (a name or an
    /// IP address).
    func startTLS(_ context: TLSContext, host: String) throws {
        guard let ssl = SSL_new(context.context) else { throw HTTPFailure.tls(.setup("OpenSSL could not start a TLS session (out of memory?)")) }
        tls = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw HTTPFailure.tls(.setup("OpenSSL could not take the connection")) }
        // Without the address or name set, OpenSSL would accept any valid certificate: a failure
        // to set it stops the request.
        if isIPAddress(host) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw HTTPFailure.tls(.setup("OpenSSL cannot check certificates against the address \(host)"))
            }
        } else {
            guard bracelet_tls_set_server_name(ssl, host) == 1 else { throw HTTPFailure.tls(.setup("OpenSSL cannot send the name \(host) (SNI)")) }
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard SSL_set1_host(ssl, host) == 1 else { throw HTTPFailure.tls(.setup("OpenSSL cannot check certificates against the name \(host)")) }
        }
        SSL_set_verify(ssl, SSL_VERIFY_PEER, nil)
        ERR_clear_error()
        while true {
            let result = SSL_connect(ssl)
            if result == 1 { return }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: try wait(fd, for: Int16(POLLIN))
            case SSL_ERROR_WANT_WRITE: try wait(fd, for: Int16(POLLOUT))
            default: throw HTTPFailure.tls(handshakeProblem(ssl))
            }
        }
    }

    /// What refused the handshake: the certificate check's verdict, else OpenSSL's reason.
    private func handshakeProblem(_ ssl: OpaquePointer) -> TLSProblem {
        let verdict = SSL_get_verify_result(ssl)
        if verdict != X509_V_OK {
            let text = String(cString: X509_verify_cert_error_string(verdict))
            if verdict == X509_V_ERR_HOSTNAME_MISMATCH || verdict == X509_V_ERR_IP_ADDRESS_MISMATCH { return .otherName(text) }
            return .certificateRefused(text)
        }
        let code = ERR_get_error()
        ERR_clear_error()
        if code != 0, let reason = ERR_reason_error_string(code) { return .handshake(String(cString: reason)) }
        return .handshake("the receiver closed the connection")
    }

    /// Writes all of `bytes`, unless the peer starts answering first: then stops and returns
    /// `false` (the answer is left to read).
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 20)
            let start = bytes.baseAddress! + offset
            if let tls {
                ERR_clear_error()
                let written = SSL_write(tls, start, Int32(chunk))
                if written > 0 {
                    offset += Int(written)
                    continue
                }
                switch SSL_get_error(tls, written) {
                case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ:
                    // Readable while writing: a TLS record (a session ticket) or the answer; only
                    // application data counts as the answer.
                    if try wait(fd, for: Int16(POLLOUT) | Int16(POLLIN)) & Int16(POLLIN) != 0, try peekAnswer() { return false }
                default:
                    throw HTTPFailure.network("the connection broke while sending (\(tlsErrorText()))")
                }
            } else {
                let written = send(fd, start, chunk, Int32(MSG_NOSIGNAL))
                if written > 0 {
                    offset += written
                    continue
                }
                guard written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                    if written < 0, errno == EPIPE || errno == ECONNRESET, try peekAnswer() { return false }
                    throw HTTPFailure.network("the connection broke while sending (\(String(cString: strerror(errno))))")
                }
                if try wait(fd, for: Int16(POLLOUT) | Int16(POLLIN)) & Int16(POLLIN) != 0, try peekAnswer() { return false }
            }
        }
        return true
    }

    /// Bytes read ahead by ``peekAnswer()``, returned first by ``read(into:)``.
    private var readAhead: [UInt8] = []

    /// Whether an answer's bytes are waiting (read ahead, to be returned by ``read(into:)``).
    ///
    /// - Throws: ``HTTPFailure/network(_:)`` when the receiver closed the connection instead.
    private func peekAnswer() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        guard let count = try readOnce(into: &buffer, waiting: false) else { return !readAhead.isEmpty }
        guard count > 0 || !readAhead.isEmpty else {
            throw HTTPFailure.network("the receiver closed the connection before the whole body was sent")
        }
        readAhead.append(contentsOf: buffer[..<count])
        return true
    }

    /// Reads what comes next into `buffer`; 0 at the end of the stream.
    func read(into buffer: inout [UInt8]) throws -> Int {
        if !readAhead.isEmpty {
            let count = min(buffer.count, readAhead.count)
            buffer.replaceSubrange(0..<count, with: readAhead[..<count])
            readAhead.removeFirst(count)
            return count
        }
        return try readOnce(into: &buffer, waiting: true) ?? 0
    }

    /// One read: the bytes read, 0 at the end of the stream; without `waiting`, `nil` at once when
    /// nothing is there yet.
    private func readOnce(into buffer: inout [UInt8], waiting: Bool) throws -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                if let tls {
                    ERR_clear_error()
                    return Int(SSL_read(tls, raw.baseAddress, Int32(raw.count)))
                }
                return recv(fd, raw.baseAddress, raw.count, 0)
            }
            if count > 0 { return count }
            if let tls {
                switch SSL_get_error(tls, Int32(count)) {
                case SSL_ERROR_ZERO_RETURN: return 0
                case SSL_ERROR_WANT_READ:
                    guard waiting else { return nil }
                    try wait(fd, for: Int16(POLLIN))
                case SSL_ERROR_WANT_WRITE:
                    guard waiting else { return nil }
                    try wait(fd, for: Int16(POLLOUT))
                case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
                    // The peer closed the TCP connection without TLS's goodbye: the end of the answer.
                    return 0
                default:
                    throw HTTPFailure.network("the connection broke while reading the answer (\(tlsErrorText()))")
                }
            } else {
                if count == 0 { return 0 }
                if errno == ECONNRESET { return 0 }
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                    throw HTTPFailure.network("the connection broke while reading the answer (\(String(cString: strerror(errno))))")
                }
                guard waiting else { return nil }
                try wait(fd, for: Int16(POLLIN))
            }
        }
    }

    /// OpenSSL's reason for the last failure.
    private func tlsErrorText() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        if code != 0, let reason = ERR_reason_error_string(code) { return String(cString: reason) }
        return errno == 0 ? "closed by the receiver" : String(cString: strerror(errno))
    }

    /// Waits until `socket` is ready for `events` (returns the events that came), the deadline
    /// passes (``HTTPFailure/timedOut``) or the interrupt fires (``HTTPFailure/cancelled``).
    @discardableResult
    private func wait(_ socket: Int32, for events: Int16) throws -> Int16 {
        var descriptors = [pollfd(fd: socket, events: events, revents: 0), pollfd(fd: interrupt.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            try checkInterrupt()
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw HTTPFailure.timedOut }
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, left.pollMilliseconds)
            if ready < 0 && errno != EINTR { throw HTTPFailure.network(String(cString: strerror(errno))) }
            if descriptors[1].revents != 0 { throw HTTPFailure.cancelled }
            // An error or hang-up makes the next read or write say what happened.
            if descriptors[0].revents != 0 { return descriptors[0].revents }
        }
    }

    private func checkInterrupt() throws {
        if interrupt.isFired { throw HTTPFailure.cancelled }
    }

    private func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// An OpenSSL client context: TLS 1.2 or newer, the certificate checked against the system's trust
/// store (`/etc/ssl/certs`, or the file `$SSL_CERT_FILE` names, as OpenSSL reads it).
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init() throws {
        guard let made = SSL_CTX_new(TLS_client_method()) else { throw HTTPFailure.tls(.setup("OpenSSL could not make a TLS context (libssl missing or out of memory)")) }
        context = made
        guard bracelet_tls_require_tls12(made) == 1 else { throw HTTPFailure.tls(.setup("OpenSSL refused to require TLS 1.2 or newer")) }
        guard SSL_CTX_set_default_verify_paths(made) == 1 else {
            throw HTTPFailure.tls(.setup("OpenSSL could not load the trusted CA certificates (/etc/ssl/certs, or the file $SSL_CERT_FILE names)"))
        }
        SSL_CTX_set_verify(made, SSL_VERIFY_PEER, nil)
    }

    deinit { SSL_CTX_free(context) }
}
