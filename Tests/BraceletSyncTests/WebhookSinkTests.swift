import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

private func oneEntry(_ folder: TemporaryFolder) throws -> (Store, OutboxEntry) {
    let store = try Store(path: folder.path("a.db"))
    try enqueue(store, device: "SN1", date: "2024-03-01", value: 42)
    return (store, try #require(try store.outboxEntries().first))
}

@Test func webhookPostsSignedGzipJSONWithTheIdempotencyKey() async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try oneEntry(folder)
    let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "ok") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "s3cret", timeoutSeconds: 5)
    let before = Int64(Date().timeIntervalSince1970)
    #expect(try await sink.deliver(entry) == .delivered(httpStatus: 200))
    let after = Int64(Date().timeIntervalSince1970)
    let request = try #require(server.requests.first)
    #expect(request.method == "POST")
    #expect(request.path == "/bracelet")
    #expect(request.headers["content-type"] == "application/json")
    #expect(request.headers["content-encoding"] == "gzip")
    #expect(request.headers["idempotency-key"] == "SN1/2024-03-01/daily/v1")
    #expect(Array(request.body.prefix(2)) == [0x1F, 0x8B])
    #expect(try request.decodedBody == entry.deliveryBody)
    #expect(request.headers["x-bracelet-user"] == nil)
    // The receiver's check: HMAC-SHA256 of the exact bytes on the wire (here the gzip bytes) with the
    // shared secret, made before anything is decompressed.
    #expect(request.headers["x-bracelet-signature"] == "sha256=" + HMACSHA256.hex(key: Array("s3cret".utf8), message: Array(request.body)))
    #expect(request.headers["x-bracelet-signature"] != "sha256=" + HMACSHA256.hex(key: Array("s3cret".utf8), message: Array(entry.deliveryBody)))
    #expect(request.headers["x-bracelet-signature"] != "sha256=" + HMACSHA256.hex(key: Array("other".utf8), message: Array(request.body)))
    let body = try #require(try JSONSerialization.jsonObject(with: request.decodedBody) as? [String: Any])
    #expect((body["summary"] as? [String: Any])?["value"] as? Int == 42)
    // Standard Webhooks: the id is the key, the timestamp now, and the signature covers
    // "id.timestamp.JSON" (the JSON before gzip), keyed with the secret's bytes.
    #expect(request.headers["webhook-id"] == "SN1/2024-03-01/daily/v1")
    let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int64($0) })
    #expect(before...after ~= timestamp)
    let signed = Array("SN1/2024-03-01/daily/v1.\(timestamp).".utf8) + Array(try request.decodedBody)
    #expect(request.headers["webhook-signature"] == "v1," + Data(HMACSHA256.mac(key: Array("s3cret".utf8), message: signed)).base64EncodedString())
}

@Test func aWhsecSecretIsTheBase64KeyOfTheSpecification() throws {
    let key: [UInt8] = (0..<32).map { UInt8($0 * 7 % 256) }
    let secret = "whsec_" + Data(key).base64EncodedString()
    #expect(try StandardWebhookKey(secret: secret).bytes == key)
    // Without its padding too, as the specification's libraries take it.
    #expect(try StandardWebhookKey(secret: String(secret.drop { $0 == "=" }.reversed().drop { $0 == "=" }.reversed())).bytes == key)
    #expect(try StandardWebhookKey(secret: "plain secret").bytes == Array("plain secret".utf8))
    let signature = try StandardWebhookKey(secret: secret).signature(id: "id1", timestamp: 1_700_000_000, body: Array("{}".utf8))
    #expect(signature == "v1," + Data(HMACSHA256.mac(key: key, message: Array("id1.1700000000.{}".utf8))).base64EncodedString())
    #expect(throws: SyncError.self) { try StandardWebhookKey(secret: "whsec_not base64!") }
    #expect(throws: SyncError.emptySecret) { try StandardWebhookKey(secret: "") }
}

@Test func webhookIdentityPostsTheJSONAsItIsSignedOverItsBytes() async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try oneEntry(folder)
    let server = try TestHTTPServer { _, _ in .respond(status: 200, body: "ok") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "s3cret", timeoutSeconds: 5, encoding: .identity)
    #expect(try await sink.deliver(entry) == .delivered(httpStatus: 200))
    let request = try #require(server.requests.first)
    #expect(request.headers["content-encoding"] == nil)
    #expect(request.body == entry.deliveryBody)
    #expect(request.headers["x-bracelet-signature"] == "sha256=" + HMACSHA256.hex(key: Array("s3cret".utf8), message: Array(request.body)))
}

@Test func aReceiverAnswering415GetsTheSameEntryUncompressedAtOnceAndEveryLaterOneToo() async throws {
    let folder = try TemporaryFolder()
    let (store, entry) = try oneEntry(folder)
    try enqueue(store, device: "SN1", date: "2024-03-02", value: 43)
    let second = try #require(try store.outboxEntries().last)
    // A receiver without gzip, answering as HTTP says it should.
    let server = try TestHTTPServer { request, _ in
        request.headers["content-encoding"] == nil ? .respond(status: 200, body: "") : .respond(status: 415, body: "no gzip here")
    }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 5)
    #expect(sink.currentEncoding == .gzip)
    #expect(try await sink.deliver(entry) == .delivered(httpStatus: 200))
    #expect(sink.currentEncoding == .identity)
    #expect(try await sink.deliver(second) == .delivered(httpStatus: 200))
    let requests = server.requests
    #expect(requests.map { $0.headers["content-encoding"] ?? "identity" } == ["gzip", "identity", "identity"])
    #expect(requests.map { $0.headers["idempotency-key"] } == [entry.key, entry.key, second.key])
    #expect(requests[1].body == entry.deliveryBody)
    #expect(requests[1].headers["x-bracelet-signature"] == "sha256=" + HMACSHA256.hex(key: Array("k".utf8), message: Array(entry.deliveryBody)))
}

@Test func webhookStatusesMapToOutcomes() async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try oneEntry(folder)
    let statuses = [201, 409, 422, 400, 500, 503, 429, 401, 403, 404, 405, 408]
    let server = try TestHTTPServer { _, index in .respond(status: statuses[index % statuses.count], body: "answer \(index)") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 5)
    var outcomes: [DeliveryOutcome] = []
    for _ in statuses { outcomes.append(try await sink.deliver(entry)) }
    #expect(outcomes.map(\.label) == ["delivered", "already_had", "permanent_failure", "permanent_failure",
                                      "transient_failure", "transient_failure", "transient_failure",
                                      "configuration_failure", "configuration_failure", "configuration_failure",
                                      "configuration_failure", "transient_failure"])
    #expect(outcomes.map(\.httpStatus) == statuses)
    #expect(outcomes[2].reason == "HTTP 422 from \(server.url): answer 2")
    #expect(outcomes[7].reason == "HTTP 401 from \(server.url): answer 7 (check the secret and the receiver's credentials)")
    #expect(outcomes[9].reason == "HTTP 404 from \(server.url): answer 9 (check the --webhook URL: nothing there takes a POST)")
}

@Test func webhook500Then200IsDeliveredOnTheRetryWithTheSameKeyAndSignature() async throws {
    let folder = try TemporaryFolder()
    let (store, entry) = try oneEntry(folder)
    let server = try TestHTTPServer { _, index in index == 0 ? .respond(status: 500, body: "boom") : .respond(status: 200, body: "") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 5)
    let clock = ManualClock(start: Store.systemMilliseconds())
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(baseDelayMilliseconds: 2_000), clock: clock, random: { 1 })
    let report = try await forwarder.drain()
    #expect(report.delivered == 1)
    #expect(report.retried == 1)
    #expect(clock.sleeps == [2_000])
    let log = try store.deliveryLog(entryID: entry.id)
    #expect(log.map(\.outcome) == ["transient_failure", "delivered"])
    #expect(log.map(\.httpStatus) == [500, 200])
    #expect(log.first?.error == "HTTP 500 from \(server.url): boom")
    let requests = server.requests
    #expect(requests.count == 2)
    #expect(requests[0].headers["idempotency-key"] == requests[1].headers["idempotency-key"])
    #expect(requests[0].headers["x-bracelet-signature"] == requests[1].headers["x-bracelet-signature"])
}

/// The receiver accepts the connection and then says nothing for 300 s: the sink's own 0.5 s
/// deadline must end the attempt (not the receiver, not URLSession's 6 s backstop), and the retry
/// delivers. Asserted by what happened (the logged error is the sink's own deadline), never by
/// wall-clock time: on 2 busy cores the test may wait minutes for a thread after the deadline fired.
@Test func aReceiverThatHangsTimesOutAndIsRetried() async throws {
    let folder = try TemporaryFolder()
    let (store, entry) = try oneEntry(folder)
    let server = try TestHTTPServer { _, index in index == 0 ? .hang(seconds: 300) : .respond(status: 204, body: "") }
    defer { server.stop() }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 0.5)
    let clock = ManualClock(start: Store.systemMilliseconds())
    let forwarder = Forwarder(store: store, sink: sink, policy: try RetryPolicy(), clock: clock, random: { 0 })
    let report = try await forwarder.drain()
    #expect(report.delivered == 1)
    #expect(report.retried == 1)
    let log = try store.deliveryLog(entryID: entry.id)
    #expect(log.map(\.outcome) == ["transient_failure", "delivered"])
    #expect(log.map(\.httpStatus) == [nil, 204])
    #expect(log.first?.error == "no answer from \(server.url) within 0.5 s (--timeout)", "errors were \(log.map(\.error))")
    // Default policy: 1 s nominal after the first failure, jitter 0 picks its lower half: 0.5 s.
    #expect(clock.sleeps == [500])
    let requests = server.requests
    #expect(requests.count == 2)
    #expect(requests.map { $0.headers["idempotency-key"] } == ["SN1/2024-03-01/daily/v1", "SN1/2024-03-01/daily/v1"])
}

@Test func garbageAndRefusedConnectionsAreTransient() async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try oneEntry(folder)
    let server = try TestHTTPServer { _, _ in .garbage("SSH-2.0-OpenSSH_9.2\r\n\r\n") }
    let sink = try WebhookSink(url: server.url, secret: "k", timeoutSeconds: 3)
    let garbage = try await sink.deliver(entry)
    #expect(garbage.label == "transient_failure", "got \(garbage)")
    server.stop()
    // Nobody listens on the port any more.
    let refused = try await sink.deliver(entry)
    #expect(refused.label == "transient_failure", "got \(refused)")
    #expect(refused.reason?.contains("network error") == true)
}

@Test func webhookConfigurationErrorsSayWhatToDo() {
    #expect(throws: SyncError.invalidWebhookURL("ftp://x/y")) { try WebhookSink(url: "ftp://x/y", secret: "k") }
    #expect(throws: SyncError.invalidWebhookURL("not a url")) { try WebhookSink(url: "not a url", secret: "k") }
    #expect(throws: SyncError.emptySecret) { try WebhookSink(url: "http://127.0.0.1:1/x", secret: "") }
    #expect(SyncError.emptySecret.description.contains("--secret"))
}

/// A TLS failure of this host's OpenSSL (no trust store, a check it would not set up) says to fix
/// this host, not the receiver's port or settings as a handshake failure does; it was once shown
/// as "not an absolute http:// URL" with OpenSSL's enum dumped in it.
@Test func aTLSSetupFailureSaysToFixThisHost() throws {
    let sink = try WebhookSink(url: "https://hooks.example.org/in", secret: "k")
    let outcome = sink.outcome(of: .tls(.setup("OpenSSL cannot check certificates against the address 192.0.2.1")))
    #expect(outcome == .configurationFailure(reason: "TLS to https://hooks.example.org/in failed: OpenSSL cannot check certificates against "
        + "the address 192.0.2.1: this is this host's OpenSSL, not the receiver: install or repair the package libssl3", httpStatus: nil))
    let setup = SyncError.tlsSetup(url: "https://hooks.example.org/in", problem: "OpenSSL could not load the trusted CA certificates")
    #expect(setup.description.hasPrefix("cannot deliver to https://hooks.example.org/in over https: OpenSSL could not load the trusted CA certificates. "))
    #expect(setup.description.contains("install or repair the packages libssl3 and ca-certificates"))
}

/// As libcurl did, `$http_proxy` sends http requests to the proxy whole (absolute URI, with
/// `Proxy-Authorization` from its user info), `$https_proxy` is for https URLs, and `$no_proxy`
/// exempts hosts by name or domain.
@Test func anHTTPProxyFromTheEnvironmentGetsTheRequestWhole() async throws {
    let folder = try TemporaryFolder()
    let (_, entry) = try oneEntry(folder)
    let proxy = try TestHTTPServer { _, _ in .respond(status: 200, body: "") }
    defer { proxy.stop() }
    let url = try #require(URL(string: "http://receiver.example:8080/in?x=1"))
    let target = try #require(WebhookTarget(url, environment: ["http_proxy": "http://u:pw@127.0.0.1:\(proxy.port)"]))
    let sink = try WebhookSink(url: url.absoluteString, secret: "k", timeoutSeconds: 5)
    let request = sink.request(for: entry)
    let result = await WebhookTransport.send(target: target, head: request.head(for: target), body: request.body, timeoutSeconds: 5, tls: nil)
    #expect(result == .answer(status: 200, location: nil, body: Data(), bodySent: true))
    let received = try #require(proxy.requests.first)
    #expect(received.path == "http://receiver.example:8080/in?x=1")
    #expect(received.headers["host"] == "receiver.example:8080")
    #expect(received.headers["proxy-authorization"] == "Basic " + Data("u:pw".utf8).base64EncodedString())

    let environment = ["https_proxy": "proxy.example:3128", "no_proxy": "localhost,.internal.example"]
    #expect(WebhookTarget.proxy(for: "hooks.example.org", secure: true, environment: environment)?.host == "proxy.example")
    #expect(WebhookTarget.proxy(for: "hooks.example.org", secure: false, environment: environment) == nil)
    #expect(WebhookTarget.proxy(for: "db.internal.example", secure: true, environment: environment) == nil)
    #expect(WebhookTarget.proxy(for: "localhost", secure: true, environment: environment) == nil)

    // An IPv6 literal: connected to without brackets, named with them.
    let v6URL = try #require(URL(string: "https://[::1]:8443"))
    let v6 = try #require(WebhookTarget(v6URL, environment: [:]))
    #expect(v6.host == "::1" && v6.hostHeader == "[::1]:8443" && v6.port == 8443 && v6.path == "/" && v6.secure)
}
