import BraceletDecoder
import BraceletStore
import Foundation

/// POSTs each entry's JSON payload to a URL, signed as Standard Webhooks specifies.
///
/// Headers: `Content-Type: application/json`; `webhook-id: <entry key>`, `webhook-timestamp: <Unix
/// seconds>` and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (see
/// ``StandardWebhookKey``; the body signed is the JSON, before any Content-Encoding); `Idempotency-Key:
/// <entry key>`; the older `X-Bracelet-Signature: sha256=<hex HMAC-SHA256 of the bytes on the wire>`
/// (kept for one release, so receivers can move to the standard one); and, when the device is
/// assigned to a study participant, `X-Bracelet-User: <id>`. The body is
/// ``BraceletStore/OutboxEntry/deliveryBody``, sent with `Content-Encoding: gzip` (one gzip member,
/// about a twelfth of a day summary's 0.6 MB) unless the sink was made with ``WebhookEncoding/identity``.
///
/// A receiver that does not take gzip answers 415 (Unsupported Media Type, as HTTP says it should):
/// the sink sends the same entry again at once without compression, and from then on sends every
/// entry uncompressed (the sink remembers it for as long as it lives).
///
/// Delivered means received: only a 2xx answer given after the whole body was sent counts. Answers:
/// 2xx delivered; 409 the receiver already had the key; a redirect (3xx) is never followed (the
/// signed body would not reach the new address intact: a 307 was re-sent empty, a 302 turned into a
/// GET) and pauses the sink with the `Location` to configure instead; 408 and 429 retry (they mean
/// "try again later"); 401, 403, 404, 405 and 407 say the sink is set up wrong (secret, URL, proxy)
/// and pause it, and so does a refused TLS certificate; any other 4xx is a permanent refusal of this
/// entry (dead letter); 5xx, network errors, timeouts and answers that are not HTTP are retried. At
/// most ``WebhookTransport/answerBytesKept`` bytes of an answer's body are read.
public struct WebhookSink: OutboxSink {
    /// Where entries are POSTed.
    public let url: URL
    /// How long one request may take, seconds: connecting, sending and the answer together.
    public let timeoutSeconds: Double
    /// The key of the Standard Webhooks signature.
    let key: StandardWebhookKey
    /// The secret's own bytes, the key of the older `X-Bracelet-Signature`.
    let legacySecret: [UInt8]
    /// The URL taken apart (and the proxy the environment names).
    let target: WebhookTarget
    /// OpenSSL's context, for an https URL.
    let tls: TLSContext?
    /// The encoding asked for, and whether the receiver refused gzip.
    let encoding: WebhookEncoding
    private let gzipRefused = GzipRefusal()
    /// Unix seconds now, for `webhook-timestamp`.
    let now: @Sendable () -> Int64

    /// Creates a webhook sink.
    ///
    /// - Throws: ``SyncError/invalidWebhookURL(_:)`` unless `url` is absolute http(s) (the error shows
    ///   it redacted), ``SyncError/emptySecret`` or ``SyncError/invalidSecret(_:)`` for a secret that
    ///   cannot be used, ``SyncError/invalidOption(name:value:rule:)`` unless the timeout is a finite
    ///   number of seconds from 0.001 to 3600.
    public init(url: String, secret: String, timeoutSeconds: Double = 10, encoding: WebhookEncoding = .gzip,
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        guard let parsed = URL(string: url), let target = WebhookTarget(parsed) else { throw SyncError.invalidWebhookURL(URLRedaction.redacted(url)) }
        key = try StandardWebhookKey(secret: secret)
        _ = try SyncDuration.milliseconds(timeoutSeconds, option: "--timeout", upTo: WebhookSink.longestTimeoutSeconds)
        self.url = parsed
        legacySecret = Array(secret.utf8)
        self.timeoutSeconds = timeoutSeconds
        self.encoding = encoding
        self.now = now
        self.target = target
        do { tls = target.secure ? try TLSContext() : nil } catch let HTTPFailure.tls(problem) {
            throw SyncError.tlsSetup(url: URLRedaction.redacted(url), problem: problem.text)
        }
    }

    /// The longest request timeout: an hour. A receiver slower than that is down.
    public static let longestTimeoutSeconds = 3_600.0

    /// The URL as it is shown: user info and query values hidden (``URLRedaction``).
    public var shownURL: String { URLRedaction.redacted(url.absoluteString) }

    /// `webhook <url>`, the URL redacted: what logs, metrics, status and the delivery log show.
    public var name: String { "webhook \(shownURL)" }

    /// The encoding the next request uses: the one asked for, or identity once the receiver refused gzip.
    public var currentEncoding: WebhookEncoding {
        encoding == .gzip && !gzipRefused.value ? .gzip : .identity
    }

    /// Builds the signed request for `entry`, in ``currentEncoding`` unless `encoding` is given,
    /// signed now.
    func request(for entry: OutboxEntry, encoding: WebhookEncoding? = nil) -> WebhookRequest {
        let json = entry.deliveryBody
        var request = WebhookRequest(body: json)
        if (encoding ?? currentEncoding) == .gzip {
            request.body = json.withUnsafeBytes { Data(Deflate.compress($0)) }
            request.headers.append(("Content-Encoding", "gzip"))
        }
        let timestamp = now()
        request.headers += [
            ("Content-Type", "application/json"),
            ("webhook-id", entry.key),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", key.signature(id: entry.key, timestamp: timestamp, body: json)),
            ("Idempotency-Key", entry.key),
            ("X-Bracelet-Signature", HMACSHA256.signatureHeader(body: Array(request.body), secret: legacySecret)),
        ]
        // Only an id that passes the store's rule goes into a header; the body carries it escaped anyway.
        if let user = entry.user, UserID.isWellFormed(user) { request.headers.append(("X-Bracelet-User", user)) }
        return request
    }

    /// POSTs the entry and classifies the answer.
    ///
    /// - Throws: `CancellationError` when the calling task was cancelled (the request is stopped).
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        let encoding = currentEncoding
        var result = try await send(request(for: entry, encoding: encoding))
        if encoding == .gzip, case .answer(415, _, _, _) = result {
            // The receiver does not take gzip: this entry again, and every later one, uncompressed.
            gzipRefused.value = true
            result = try await send(request(for: entry, encoding: .identity))
        }
        return outcome(of: result)
    }

    /// The outcome of one exchange.
    func outcome(of result: WebhookExchangeResult) -> DeliveryOutcome {
        let target = shownURL
        switch result {
        case .cancelled:
            return .transientFailure(reason: "the request to \(target) was cancelled", httpStatus: nil)
        case .timedOut:
            return .transientFailure(reason: "no answer from \(target) within \(Self.seconds(timeoutSeconds)) s (--timeout)", httpStatus: nil)
        case let .failure(reason):
            return .transientFailure(reason: "network error talking to \(target): \(reason)", httpStatus: nil)
        case let .tls(problem):
            return .configurationFailure(reason: "TLS to \(target) failed: " + Self.advice(problem, host: self.target.host), httpStatus: nil)
        case let .answer(status, location, body, bodySent):
            let snippet = String(decoding: body.prefix(200), as: UTF8.self)
                .replacingOccurrences(of: "\n", with: " ")
            let reason = "HTTP \(status) from \(target)" + (snippet.isEmpty ? "" : ": \(snippet)")
            switch status {
            case 200..<300 where !bodySent:
                return .transientFailure(reason: "HTTP \(status) from \(target) before it received the whole body: not counted as delivered",
                                         httpStatus: status)
            case 200..<300: return .delivered(httpStatus: status)
            case 300..<400: return .configurationFailure(reason: redirectReason(status: status, location: location), httpStatus: status)
            case 409: return .alreadyHad(httpStatus: status)
            case 408, 429: return .transientFailure(reason: reason, httpStatus: status)
            case 401, 403, 407:
                return .configurationFailure(reason: reason + " (check the secret and the receiver's credentials)", httpStatus: status)
            case 404, 405:
                return .configurationFailure(reason: reason + " (check the --webhook URL: nothing there takes a POST)", httpStatus: status)
            case 400..<500: return .permanentFailure(reason: reason, httpStatus: status)
            default: return .transientFailure(reason: reason, httpStatus: status)
            }
        }
    }

    /// Why a redirect pauses the sink, naming where it points (redacted, relative to the URL).
    func redirectReason(status: Int, location: String?) -> String {
        let head = "HTTP \(status) from \(shownURL)"
        guard let location, !location.isEmpty else {
            return head + " is a redirect without a Location: bracelet does not follow redirects; configure the receiver's own URL with --webhook"
        }
        let target = URL(string: location, relativeTo: url)?.absoluteString ?? location
        return head + " redirects to \(URLRedaction.redacted(target)): bracelet does not follow redirects (the signed body "
            + "would not reach it intact); if that is the receiver, configure it: --webhook \(URLRedaction.redacted(target))"
    }

    /// A TLS problem in words an operator acts on: what OpenSSL found, and what to change.
    static func advice(_ problem: TLSProblem, host: String) -> String {
        switch problem {
        case let .certificateRefused(text):
            "its certificate was refused (\(text)): the receiver's certificate must be valid now and signed by a CA this host "
                + "trusts (/etc/ssl/certs; add a private CA with update-ca-certificates, or name its file in $SSL_CERT_FILE)"
        case let .otherName(text):
            "its certificate is for another name than \(host) (\(text)): put a name the certificate carries in --webhook, or have "
                + "the receiver's certificate issued for \(host)"
        case let .handshake(text):
            "the TLS handshake failed (\(text)): check that the URL's port speaks https and the receiver's TLS settings"
        case let .setup(text):
            "\(text): this is this host's OpenSSL, not the receiver: install or repair the package libssl3"
        }
    }

    /// `seconds` as the user gave it (no trailing `.0`).
    static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : "\(seconds)"
    }

    /// Sends `request` with this sink's deadline; throws `CancellationError` when the task was cancelled.
    func send(_ request: WebhookRequest) async throws -> WebhookExchangeResult {
        let result = await WebhookTransport.send(target: target, head: request.head(for: target), body: request.body,
                                                 timeoutSeconds: timeoutSeconds, tls: tls)
        if Task.isCancelled { throw CancellationError() }
        return result
    }
}

/// A signed request: its headers (those of the entry; the connection's own are added when sent)
/// and its body as sent.
struct WebhookRequest: Sendable {
    var headers: [(String, String)] = []
    var body: Data

    init(body: Data) { self.body = body }

    /// The request line and headers for `target`: origin-form to the receiver, absolute-form to a
    /// proxy for http, with `Connection: close` (one request per connection).
    func head(for target: WebhookTarget) -> [UInt8] {
        let direct = target.proxy == nil || target.secure
        let requestTarget = direct ? target.path : "http://\(target.hostHeader)\(target.path)"
        var lines = ["POST \(requestTarget) HTTP/1.1", "Host: \(target.hostHeader)", "User-Agent: bracelet", "Content-Length: \(body.count)"]
        lines += headers.map { "\($0.0): \($0.1)" }
        if let authorization = target.authorization { lines.append("Authorization: \(authorization)") }
        if !direct, let authorization = target.proxy?.authorization { lines.append("Proxy-Authorization: \(authorization)") }
        lines.append("Connection: close")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
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
