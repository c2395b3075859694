import BraceletStore
import Foundation
import Testing
@testable import BraceletSync

/// Runs `openssl` with `arguments` in `folder`; throws when it fails.
private func openssl(_ arguments: [String], in folder: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw StoreError.invalidInput("openssl \(arguments.joined(separator: " ")) failed") }
}

/// A CA (`ca.crt`) and a server certificate it signed (`NAME.crt`, `NAME.key`) for `subjectAltName`.
private func makeCertificates(in folder: String, name: String, subjectAltName: String) throws {
    if !FileManager.default.fileExists(atPath: folder + "/ca.crt") {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                     "-subj", "/CN=test CA", "-keyout", "ca.key", "-out", "ca.crt"], in: folder)
    }
    try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=\(name)",
                 "-keyout", "\(name).key", "-out", "\(name).csr"], in: folder)
    try Data("subjectAltName=\(subjectAltName)\n".utf8).write(to: URL(fileURLWithPath: folder + "/\(name).ext"))
    try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                 "-extfile", "\(name).ext", "-out", "\(name).crt"], in: folder)
}

/// TLS failures name the certificate or host problem (never "URL error -1"), pause the sink (exit
/// 78), and show in the sink's state; with the CA trusted and the right name, the delivery goes
/// through and the far end verifies it.
@Suite(.serialized, .enabled(if: standardWebhooksInstalled, "python3 lacks the standardwebhooks package: run tools/install-system-packages.sh"))
struct TLSDeliveryTests {
    @Test func anUntrustedCertificateIsNamedAndPausesTheSink() throws {
        let folder = try TemporaryFolder()
        try makeCertificates(in: folder.url.path, name: "local", subjectAltName: "IP:127.0.0.1")
        let receiver = try PythonReceiver(secret: "k", arguments: ["--tls-cert", folder.path("local.crt"), "--tls-key", folder.path("local.key")])
        let path = folder.path("s.db")
        let store = try Store(path: path)
        try enqueue(store, device: "A", date: "2024-03-01", value: 1)
        let url = receiver.url
        #expect(url.hasPrefix("https://"))
        let untrusted = try runBracelet(["sync", "--db", path, "--webhook", url, "--once"], environment: ["BRACELET_WEBHOOK_SECRET": "k"])
        #expect(untrusted.status == 78, "stderr: \(untrusted.err)")
        #expect(untrusted.err.contains("TLS to \(url) failed: its certificate was refused (unable to get local issuer certificate)"),
                "stderr: \(untrusted.err)")
        #expect(!untrusted.err.contains("error -1"))
        let health = try #require(try store.sinkHealth().first)
        #expect(health.state == .paused)
        #expect(health.lastError?.contains("unable to get local issuer certificate") == true)

        // The CA trusted (OpenSSL's $SSL_CERT_FILE): delivered, and verified at the far end.
        let trusted = try runBracelet(["sync", "--db", path, "--webhook", url, "--once"],
                                      environment: ["BRACELET_WEBHOOK_SECRET": "k", "SSL_CERT_FILE": folder.path("ca.crt")])
        #expect(trusted.status == 0, "stderr: \(trusted.err)")
        #expect(receiver.accepted == ["A/2024-03-01/daily/v1"], "receiver: \(receiver.output)")
        #expect(try store.sinkHealth().first?.state == .ok)
    }

    /// A URL with a host name, as real receivers have: the name is sent (SNI) and checked against
    /// the certificate's names; a certificate for another name is refused naming both.
    @Test func aHostNameIsCheckedAgainstTheCertificate() throws {
        let folder = try TemporaryFolder()
        try makeCertificates(in: folder.url.path, name: "named", subjectAltName: "DNS:localhost")
        try makeCertificates(in: folder.url.path, name: "other", subjectAltName: "DNS:other.example")
        let path = folder.path("s.db")
        let store = try Store(path: path)
        try enqueue(store, device: "A", date: "2024-03-01", value: 1)
        let environment = ["BRACELET_WEBHOOK_SECRET": "k", "SSL_CERT_FILE": folder.path("ca.crt")]

        let other = try PythonReceiver(secret: "k", arguments: ["--tls-cert", folder.path("other.crt"), "--tls-key", folder.path("other.key")])
        let otherURL = other.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let refused = try runBracelet(["sync", "--db", path, "--webhook", otherURL, "--once"], environment: environment)
        #expect(refused.status == 78, "stderr: \(refused.err)")
        #expect(refused.err.contains("its certificate is for another name than localhost (hostname mismatch)"), "stderr: \(refused.err)")
        #expect(other.accepted.isEmpty)

        let named = try PythonReceiver(secret: "k", arguments: ["--tls-cert", folder.path("named.crt"), "--tls-key", folder.path("named.key")])
        let url = named.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(url.hasPrefix("https://localhost:"))
        let delivered = try runBracelet(["sync", "--db", path, "--webhook", url, "--once"], environment: environment)
        #expect(delivered.status == 0, "stderr: \(delivered.err)")
        #expect(named.accepted == ["A/2024-03-01/daily/v1"], "receiver: \(named.output)")
    }

    @Test func aCertificateForAnotherNameIsNamed() throws {
        let folder = try TemporaryFolder()
        try makeCertificates(in: folder.url.path, name: "other", subjectAltName: "DNS:other.example")
        let receiver = try PythonReceiver(secret: "k", arguments: ["--tls-cert", folder.path("other.crt"), "--tls-key", folder.path("other.key")])
        let path = folder.path("s.db")
        let store = try Store(path: path)
        try enqueue(store, device: "A", date: "2024-03-01", value: 1)
        let result = try runBracelet(["sync", "--db", path, "--webhook", receiver.url, "--once"],
                                     environment: ["BRACELET_WEBHOOK_SECRET": "k", "SSL_CERT_FILE": folder.path("ca.crt")])
        #expect(result.status == 78, "stderr: \(result.err)")
        #expect(result.err.contains("its certificate is for another name than 127.0.0.1 (IP address mismatch)"), "stderr: \(result.err)")
        #expect(receiver.accepted.isEmpty)
    }

    /// Through an HTTP proxy (`$https_proxy`), an https delivery is tunnelled with CONNECT: the
    /// proxy sees only the host and port, the receiver the TLS session with its certificate checked.
    @Test func anHTTPSDeliveryIsTunnelledThroughTheProxy() throws {
        let folder = try TemporaryFolder()
        try makeCertificates(in: folder.url.path, name: "local", subjectAltName: "IP:127.0.0.1")
        let receiver = try PythonReceiver(secret: "k", arguments: ["--tls-cert", folder.path("local.crt"), "--tls-key", folder.path("local.key")])
        let proxy = try ConnectProxy()
        let path = folder.path("s.db")
        let store = try Store(path: path)
        try enqueue(store, device: "A", date: "2024-03-01", value: 1)
        let result = try runBracelet(["sync", "--db", path, "--webhook", receiver.url, "--once"],
                                     environment: ["BRACELET_WEBHOOK_SECRET": "k", "SSL_CERT_FILE": folder.path("ca.crt"),
                                                   "https_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "", "NO_PROXY": ""])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(receiver.accepted == ["A/2024-03-01/daily/v1"], "receiver: \(receiver.output)")
        let authority = receiver.url.dropFirst("https://".count).split(separator: "/")[0]
        #expect(proxy.connects == ["CONNECT \(authority)"], "proxy: \(proxy.connects)")
    }
}

/// An HTTP proxy that only tunnels (CONNECT), in Python; it prints each CONNECT it serves.
private final class ConnectProxy {
    private let process = Process()
    private let output = Pipe()
    private(set) var port = 0
    private var lines: [String] = []

    static let program = """
    import socket, sys, threading
    listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(16)
    print("listening", listener.getsockname()[1], flush=True)
    def pipe(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data: break
                b.sendall(data)
        except OSError: pass
        for s in (a, b):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass
    def serve(client):
        head = b""
        while b"\\r\\n\\r\\n" not in head:
            data = client.recv(4096)
            if not data: return
            head += data
        line = head.split(b"\\r\\n")[0].decode()
        method, authority = line.split(" ")[:2]
        print(method, authority, flush=True)
        host, port = authority.rsplit(":", 1)
        upstream = socket.create_connection((host.strip("[]"), int(port)))
        client.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        pipe(upstream, client)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client,), daemon=True).start()
    """

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", ConnectProxy.program]
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        var pending = Data()
        while !pending.contains(0x0A) {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw StoreError.invalidInput("the proxy did not start") }
            pending.append(chunk)
        }
        port = Int(String(decoding: pending, as: UTF8.self).split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The CONNECT lines it printed (read once the test is done with the proxy).
    var connects: [String] {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasPrefix("CONNECT") }
    }
}
