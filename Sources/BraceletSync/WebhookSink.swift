import BraceletStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs each entry's JSON payload to a URL.
///
/// Headers: `Content-Type: application/json`, `Idempotency-Key: <entry key>`,
/// `X-Bracelet-Signature: sha256=<hex HMAC-SHA256 of the body with the secret>` and, when the device
/// is assigned to a study participant, `X-Bracelet-User: <id>`. The body is
/// ``BraceletStore/OutboxEntry/deliveryBody``, sent with `Content-Encoding: gzip` (one gzip member,
/// about a twelfth of a day summary's 0.6 MB) unless the sink was made with ``WebhookEncoding/identity``.
///
/// **The signature covers the bytes on the wire**: the gzip bytes when the body is compressed, the
/// JSON when it is not. A receiver checks it over the request body exactly as received, before it
/// decompresses anything, so a sender without the secret cannot make it inflate a thing.
///
/// A receiver that does not take gzip answers 415 (Unsupported Media Type, as HTTP says it should):
/// the sink sends the same entry again at once without compression, and from then on sends every
/// entry uncompressed (the sink remembers it for as long as it lives).
///
/// Answers: 2xx delivered; 409 the receiver already had the key; 408 and 429 retry (they mean
/// "try again later"); 401, 403, 404, 405 and 407 say the sink is set up wrong (secret, URL, proxy)
/// and pause it; any other 4xx is a permanent refusal of this entry (dead letter); 5xx, network
/// errors, timeouts and answers that are not HTTP are retried.
public struct WebhookSink: OutboxSink {
    /// Where entries are POSTed.
    public let url: URL
    /// How long one request may take, seconds.
    public let timeoutSeconds: Double
    let secret: [UInt8]
    let session: URLSession
    /// The encoding asked for, and whether the receiver refused gzip.
    let encoding: WebhookEncoding
    private let gzipRefused = GzipRefusal()

    /// Creates a webhook sink.
    ///
    /// - Throws: ``SyncError/invalidWebhookURL(_:)`` unless `url` is absolute http(s),
    ///   ``SyncError/emptySecret`` for an empty secret, ``SyncError/invalidOption(name:value:rule:)``
    ///   unless the timeout is a finite number of seconds from 0.001 to 3600.
    public init(url: String, secret: String, timeoutSeconds: Double = 10, encoding: WebhookEncoding = .gzip) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parsed.host != nil
        else { throw SyncError.invalidWebhookURL(url) }
        guard !secret.isEmpty else { throw SyncError.emptySecret }
        _ = try SyncDuration.milliseconds(timeoutSeconds, option: "--timeout", upTo: WebhookSink.longestTimeoutSeconds)
        self.url = parsed
        self.secret = Array(secret.utf8)
        self.timeoutSeconds = timeoutSeconds
        self.encoding = encoding
        let configuration = URLSessionConfiguration.ephemeral
        // Our own deadline in `send` is the exact one; URLSession's (whole seconds in libcurl, and
        // early for fractions on Linux) is only a backstop.
        let backstop = (self.timeoutSeconds + 5).rounded(.up)
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    /// The longest request timeout: an hour. A receiver slower than that is down.
    public static let longestTimeoutSeconds = 3_600.0

    /// `webhook <url>`.
    public var name: String { "webhook \(url.absoluteString)" }

    /// The encoding the next request uses: the one asked for, or identity once the receiver refused gzip.
    public var currentEncoding: WebhookEncoding {
        encoding == .gzip && !gzipRefused.value ? .gzip : .identity
    }

    /// Builds the signed request for `entry`, in ``currentEncoding`` unless `encoding` is given.
    public func request(for entry: OutboxEntry, encoding: WebhookEncoding? = nil) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: (timeoutSeconds + 5).rounded(.up))
        request.httpMethod = "POST"
        var body = entry.deliveryBody
        if (encoding ?? currentEncoding) == .gzip {
            body = body.withUnsafeBytes { Data(Deflate.compress($0)) }
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        }
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(entry.key, forHTTPHeaderField: "Idempotency-Key")
        request.setValue(HMACSHA256.signatureHeader(body: Array(body), secret: secret), forHTTPHeaderField: "X-Bracelet-Signature")
        // Only an id that passes the store's rule goes into a header; the body carries it escaped anyway.
        if let user = entry.user, UserID.isWellFormed(user) {
            request.setValue(user, forHTTPHeaderField: "X-Bracelet-User")
        }
        return request
    }

    /// POSTs the entry and classifies the answer.
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        let encoding = currentEncoding
        var result = await send(request(for: entry, encoding: encoding))
        if encoding == .gzip, case .answer(415, _) = result {
            // The receiver does not take gzip: this entry again, and every later one, uncompressed.
            gzipRefused.value = true
            result = await send(request(for: entry, encoding: .identity))
        }
        switch result {
        case let .failure(reason):
            return .transientFailure(reason: reason, httpStatus: nil)
        case let .answer(status, body):
            let snippet = String(decoding: body.prefix(200), as: UTF8.self)
                .replacingOccurrences(of: "\n", with: " ")
            let reason = "HTTP \(status) from \(url.absoluteString)" + (snippet.isEmpty ? "" : ": \(snippet)")
            switch status {
            case 200..<300: return .delivered(httpStatus: status)
            case 409: return .alreadyHad(httpStatus: status)
            case 408, 429: return .transientFailure(reason: reason, httpStatus: status)
            case 401, 403, 407:
                return .configurationFailure(reason: reason + " (check --secret and the receiver's credentials)", httpStatus: status)
            case 404, 405:
                return .configurationFailure(reason: reason + " (check the --webhook URL: nothing there takes a POST)", httpStatus: status)
            case 400..<500: return .permanentFailure(reason: reason, httpStatus: status)
            default: return .transientFailure(reason: reason, httpStatus: status)
            }
        }
    }

    /// A readable reason for a URLSession error (Linux's localizedDescription is only the code).
    static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "\(error)" }
        switch urlError.code {
        case .timedOut: return "timed out"
        case .cannotConnectToHost: return "connection refused (is the receiver running?)"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection closed before a complete answer"
        case .badServerResponse: return "answer is not valid HTTP"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "TLS handshake failed (check the certificate)"
        case .notConnectedToInternet: return "no network"
        default: return "URL error \(urlError.code.rawValue)"
        }
    }

    enum SendResult: Sendable {
        case answer(status: Int, body: Data)
        case failure(String)
    }

    /// Sends with a hard deadline of our own on top of URLSession's timeout, so a receiver that
    /// accepts the connection and then says nothing cannot stall the queue.
    ///
    /// The deadline runs on a Dispatch queue, not as a Swift task: a task's sleep only ends when a
    /// thread of the cooperative pool is free (on a 2-core machine there are 2, and a busy caller can
    /// hold both), so a task-based deadline could fire many seconds late.
    func send(_ request: URLRequest) async -> SendResult {
        let once = ResumeOnce()
        let timeout = timeoutSeconds
        let target = url.absoluteString
        return await withCheckedContinuation { (continuation: CheckedContinuation<SendResult, Never>) in
            once.set(continuation)
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    once.resume(.failure("network error talking to \(target): \(WebhookSink.describe(error))"))
                } else if let http = response as? HTTPURLResponse {
                    once.resume(.answer(status: http.statusCode, body: data ?? Data()))
                } else {
                    once.resume(.failure("answer from \(target) is not HTTP"))
                }
            }
            once.onTimeout = { task.cancel() }
            let deadline = DispatchWorkItem {
                once.timeOut(.failure("no answer from \(target) within \(timeout) s (timeout)"))
            }
            once.deadline = deadline
            task.resume()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
        }
    }
}

/// Resumes a continuation exactly once, from whichever comes first: the answer or the timeout.
final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<WebhookSink.SendResult, Never>?
    var onTimeout: (@Sendable () -> Void)? {
        get { lock.withLock { _onTimeout } }
        set { lock.withLock { _onTimeout = newValue } }
    }
    private var _onTimeout: (@Sendable () -> Void)?

    func set(_ continuation: CheckedContinuation<WebhookSink.SendResult, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    /// The deadline; cancelled when the answer comes first so it does not linger.
    var deadline: DispatchWorkItem? {
        get { lock.withLock { _deadline } }
        set {
            let answered = lock.withLock { () -> Bool in
                if continuation != nil { _deadline = newValue }
                return continuation == nil
            }
            if answered { newValue?.cancel() }
        }
    }
    private var _deadline: DispatchWorkItem?

    // Both ends let go of the deadline and the cancel closure: the closure holds the task, whose
    // completion handler holds this object (and the task its request with the whole body), so
    // keeping them formed a cycle that leaked every delivery's body in a long-running forwarder.
    func resume(_ result: WebhookSink.SendResult) {
        let (pending, deadline) = lock.withLock { () -> (CheckedContinuation<WebhookSink.SendResult, Never>?, DispatchWorkItem?) in
            defer { continuation = nil; _deadline = nil; _onTimeout = nil }
            return (continuation, _deadline)
        }
        deadline?.cancel()
        pending?.resume(returning: result)
    }

    func timeOut(_ result: WebhookSink.SendResult) {
        let (pending, cancel) = lock.withLock { () -> (CheckedContinuation<WebhookSink.SendResult, Never>?, (@Sendable () -> Void)?) in
            defer { continuation = nil; _deadline = nil; _onTimeout = nil }
            return (continuation, _onTimeout)
        }
        guard let pending else { return }
        cancel?()
        pending.resume(returning: result)
    }
}

/// How a ``WebhookSink`` encodes its bodies.
public enum WebhookEncoding: String, Sendable, CaseIterable {
    /// `Content-Encoding: gzip`, falling back to identity when the receiver answers 415.
    case gzip
    /// The JSON as it is.
    case identity
}

/// Whether a receiver refused gzip, shared by the copies of one sink.
final class GzipRefusal: @unchecked Sendable {
    private let lock = NSLock()
    private var refused = false

    /// Whether the receiver answered 415 to a gzip body.
    var value: Bool {
        get { lock.withLock { refused } }
        set { lock.withLock { refused = newValue } }
    }
}
