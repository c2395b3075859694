import Foundation

/// What came of one HTTP request: the receiver's answer, or why there was none.
enum WebhookExchangeResult: Sendable, Equatable {
    /// The receiver answered. `body` is at most ``WebhookTransport/answerBytesKept`` bytes of its
    /// body (the rest was not read); `location` its `Location` header; `bodySent` whether every
    /// byte of the request body was sent before the answer came.
    case answer(status: Int, location: String?, body: Data, bodySent: Bool)
    /// No usable answer: a network error, an answer that is not HTTP.
    case failure(String)
    /// The receiver's TLS certificate or handshake was refused.
    case tls(TLSProblem)
    /// Nothing within the deadline.
    case timedOut
    /// The task waiting for it was cancelled (the process is stopping).
    case cancelled
}

/// Where a webhook's requests go: the URL taken apart, and the proxy when the environment names one.
struct WebhookTarget: Sendable {
    /// `http` or `https`.
    let secure: Bool
    /// The host to connect to and to check the certificate against (no brackets around IPv6).
    let host: String
    let port: Int
    /// The `Host` header (brackets and a port that is not the default kept).
    let hostHeader: String
    /// Path and query, as sent in the request line.
    let path: String
    /// `Authorization: Basic ...` from the URL's user info, as HTTP clients send it.
    let authorization: String?
    /// The proxy, from `$https_proxy` / `$http_proxy` unless `$no_proxy` exempts the host.
    let proxy: Proxy?

    /// An HTTP proxy: http URLs are sent to it whole, https ones tunnelled with CONNECT.
    struct Proxy: Sendable {
        let host: String
        let port: Int
        let authorization: String?
    }

    /// Takes `url` apart; `nil` when it is not an absolute http(s) URL with a host.
    init?(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty else { return nil }
        secure = scheme == "https"
        host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        port = components.port ?? (secure ? 443 : 80)
        hostHeader = components.port.map { "\(rawHost):\($0)" } ?? rawHost
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        path = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query
        authorization = WebhookTarget.basic(user: components.user, password: components.password)
        proxy = WebhookTarget.proxy(for: host, secure: secure, environment: environment)
    }

    /// `Basic <base64(user:password)>`, `nil` without a user.
    static func basic(user: String?, password: String?) -> String? {
        guard let user, !user.isEmpty else { return nil }
        return "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
    }

    /// The proxy libcurl would have used: `https_proxy`/`HTTPS_PROXY` for https, `http_proxy` for
    /// http (not `HTTP_PROXY`, which a CGI request can set), none for a host `no_proxy` lists.
    static func proxy(for host: String, secure: Bool, environment: [String: String]) -> Proxy? {
        let names = secure ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        guard let text = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return nil }
        let exempt = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let name = host.lowercased()
        for entry in exempt {
            let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entry == "*" || name == domain || name.hasSuffix("." + domain) { return nil }
        }
        guard let url = URL(string: text.contains("://") ? text : "http://" + text),
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let proxyHost = components.host else { return nil }
        return Proxy(host: proxyHost, port: components.port ?? 80, authorization: basic(user: components.user, password: components.password))
    }
}

/// bracelet's own HTTP/1.1 client for webhooks: one POST per connection (`Connection: close`),
/// nothing followed, at most ``answerBytesKept`` bytes of an answer's body read, every wait bounded
/// by the request's deadline and ended at once by cancellation.
///
/// FoundationNetworking (libcurl on Linux) was not used for this: without a delegate it follows
/// redirects by itself (a 307 re-sent with an empty body, a 302 turned into a GET), and with one it
/// hands the body over through a queue that does not hold libcurl back, so a 512 MiB answer was
/// read at full speed into memory (860 MB of RSS) whatever the delegate did; it also buffered the
/// whole body of a 3xx and reported a TLS failure as "error -1". Here the answer is read only as
/// far as needed: for a 2xx the status line and headers; otherwise up to the cap, for the reason.
enum WebhookTransport {
    /// Bytes of an answer's body kept (for the first 200 shown in a failure's reason); the rest is not read.
    static let answerBytesKept = 8_192
    /// The most header bytes an answer may have.
    static let headerLimit = 65_536

    /// Sends `head` and `body` to `target` and returns the answer, or a failure after
    /// `timeoutSeconds` at the latest, or `.cancelled` as soon as the calling task is cancelled.
    ///
    /// The exchange runs on a thread of its own, not on Swift's cooperative pool; the deadline runs
    /// on a Dispatch queue, not as a Swift task (a task's sleep only ends when a thread of the pool
    /// is free, and on a 2-core machine a busy caller can hold both).
    static func send(target: WebhookTarget, head: [UInt8], body: Data, timeoutSeconds: Double, tls: TLSContext?) async -> WebhookExchangeResult {
        let interrupt = WaitInterrupt()
        let answer = FirstResult<WebhookExchangeResult>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebhookExchangeResult, Never>) in
                answer.wait(with: continuation)
                let deadline = ContinuousClock.now + .milliseconds(Int64((timeoutSeconds * 1_000).rounded(.up)))
                Thread.detachNewThread {
                    // OpenSSL writes to the socket with write(2), which raises SIGPIPE when the
                    // receiver closed it (ending a process that does not ignore it): blocked on this
                    // thread, the write fails with EPIPE instead, and the signal ends with the thread.
                    var pipeSignal = sigset_t()
                    sigemptyset(&pipeSignal)
                    sigaddset(&pipeSignal, SIGPIPE)
                    pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                    answer.give(exchange(target: target, head: head, body: body, deadline: deadline, interrupt: interrupt, tls: tls))
                    interrupt.close()
                }
                // Name resolution cannot be interrupted: the caller does not wait for it past the deadline.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds + 0.05) {
                    interrupt.fire()
                    answer.give(.timedOut)
                }
            }
        } onCancel: {
            // Cancelled before the interrupt wakes the exchange, which would otherwise answer first.
            _ = answer.give(.cancelled)
            interrupt.fire()
        }
    }

    /// The exchange itself, blocking this thread (each wait bounded).
    static func exchange(target: WebhookTarget, head: [UInt8], body: Data, deadline: ContinuousClock.Instant,
                         interrupt: WaitInterrupt, tls: TLSContext?) -> WebhookExchangeResult {
        let connection = HTTPConnection(deadline: deadline, interrupt: interrupt)
        do {
            if let proxy = target.proxy {
                try connection.connect(host: proxy.host, port: proxy.port)
                if target.secure { try tunnel(connection, to: target, through: proxy) }
            } else {
                try connection.connect(host: target.host, port: target.port)
            }
            if target.secure {
                guard let tls else { return .tls(.setup("no TLS context")) }
                try connection.startTLS(tls, host: target.host)
            }
            var sentAll = try head.withUnsafeBytes { try connection.write($0) }
            if sentAll { sentAll = try body.withUnsafeBytes { try connection.write($0) } }
            return try readAnswer(connection, bodySent: sentAll)
        } catch let failure as HTTPFailure {
            switch failure {
            case .timedOut: return .timedOut
            case .cancelled: return .cancelled
            case let .network(text): return .failure(text)
            case let .tls(text): return .tls(text)
            }
        } catch {
            return .failure("\(error)")
        }
    }

    /// `CONNECT host:port` through `proxy`; throws unless it answers 2xx.
    static func tunnel(_ connection: HTTPConnection, to target: WebhookTarget, through proxy: WebhookTarget.Proxy) throws {
        let authority = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        var request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization = proxy.authorization { request += "Proxy-Authorization: \(authorization)\r\n" }
        request += "\r\n"
        _ = try Array(request.utf8).withUnsafeBytes { try connection.write($0) }
        guard case let .answer(status, _, _, _) = try readAnswer(connection, bodySent: true, headersOnly: true) else {
            throw HTTPFailure.network("the proxy \(proxy.host):\(proxy.port) did not answer CONNECT")
        }
        guard (200..<300).contains(status) else {
            throw HTTPFailure.network("the proxy \(proxy.host):\(proxy.port) refused to connect to \(authority) (HTTP \(status)"
                + (status == 407 ? ": it wants credentials, give them in $https_proxy's URL)" : ")"))
        }
    }

    /// Reads the answer: its status line and headers (after any 1xx), then, unless it is a 2xx or
    /// `headersOnly`, up to ``answerBytesKept`` bytes of its body. The interim answers and headers
    /// together may take ``headerLimit`` bytes, the body's framing ``rawBodyLimit``: what a receiver
    /// sends beyond that is not read, and an answer that is not valid HTTP is a failure saying why.
    static func readAnswer(_ connection: HTTPConnection, bodySent: Bool, headersOnly: Bool = false) throws -> WebhookExchangeResult {
        var received: [UInt8] = []
        var headBytes = 0
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let separator = received.firstRange(of: [13, 10, 13, 10])
            guard let separator else {
                guard headBytes + received.count <= headerLimit else { return .failure("the answer's headers are larger than 64 KiB") }
                let count = try connection.read(into: &buffer)
                guard count > 0 else {
                    return .failure(received.isEmpty && headBytes == 0 ? "connection closed without an answer" : "connection closed in the middle of the answer")
                }
                received.append(contentsOf: buffer[..<count])
                continue
            }
            headBytes += separator.upperBound
            guard headBytes <= headerLimit else { return .failure("the answer's headers are larger than 64 KiB") }
            let head = String(decoding: received[..<separator.lowerBound], as: UTF8.self)
            received.removeSubrange(..<separator.upperBound)
            let lines = head.components(separatedBy: "\r\n")
            let statusParts = lines[0].split(separator: " ", maxSplits: 2)
            guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]), (100...999).contains(status) else {
                return .failure("answer is not HTTP")
            }
            // An interim answer (100 Continue, 103 Early Hints) comes before the real one.
            if (100..<200).contains(status) && status != 101 { continue }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            let location = headers["location"]
            let framing: HTTPAnswerFraming
            do { framing = try HTTPAnswerFraming(headers: headers) } catch let HTTPFailure.network(reason) {
                return .failure("HTTP \(status), but \(reason)")
            }
            if headersOnly || (200..<300).contains(status) {
                return .answer(status: status, location: location, body: Data(), bodySent: bodySent)
            }
            do {
                let body = try readBody(connection, start: received, framing: framing)
                return .answer(status: status, location: location, body: body, bodySent: bodySent)
            } catch let HTTPFailure.network(reason) {
                return .failure("HTTP \(status), but \(reason)")
            }
        }
    }

    /// The most bytes of an answer's body (with its chunked framing) read: the kept bytes and the
    /// framing of many small chunks.
    static let rawBodyLimit = answerBytesKept + headerLimit

    /// Up to ``answerBytesKept`` bytes of an answer's body (chunked bodies decoded), whatever of it
    /// came before the deadline, the end of the body or of the connection, or ``rawBodyLimit``.
    ///
    /// - Throws: ``HTTPFailure/network(_:)`` when the body is not valid chunked coding.
    static func readBody(_ connection: HTTPConnection, start: [UInt8], framing: HTTPAnswerFraming) throws -> Data {
        var raw = start
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let (body, complete) = try framing.decode(raw)
            if complete || body.count >= answerBytesKept || raw.count >= rawBodyLimit { return Data(body.prefix(answerBytesKept)) }
            let count: Int
            do { count = try connection.read(into: &buffer) } catch HTTPFailure.timedOut {
                // The status is known: the body that came is enough for the reason.
                return Data(body.prefix(answerBytesKept))
            }
            if count == 0 { return Data(body.prefix(answerBytesKept)) }
            raw.append(contentsOf: buffer[..<min(count, rawBodyLimit - raw.count)])
        }
    }
}
