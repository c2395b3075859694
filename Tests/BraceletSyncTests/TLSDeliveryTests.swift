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
}
