import Foundation
import Glibc
import Testing

/// The shared libraries the dynamic loader maps for `bracelet` before any command runs (what `ldd`
/// lists: the loader's trace mode, nothing of the program runs).
func librariesLoadedAtStart() throws -> [String] {
    let process = Process()
    process.executableURL = try braceletBinary()
    process.environment = ["LD_TRACE_LOADED_OBJECTS": "1"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // Lines are `\tNAME => PATH (ADDRESS)`.
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
        $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
    }
}

@Suite struct LibraryLoadingTests {
    /// Every command pays for the libraries loaded at start: libpq (with Kerberos, LDAP, SASL and
    /// GnuTLS behind it) is opened only by the fleet code, and libcurl (URLSession) not at all.
    @Test func libpqAndLibcurlAreNotLoadedAtStart() throws {
        let libraries = try librariesLoadedAtStart()
        #expect(libraries.contains { $0.hasPrefix("libsqlite3") }, "the trace lists the linked libraries: \(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libpq") || $0.hasPrefix("libcurl") || $0.hasPrefix("libldap") }, "\(libraries)")
    }

    /// Without libpq on the host, a fleet command says what is missing and what to install (exit 1,
    /// no crash), and commands that do not need it run. libpq is hidden by a bind mount in a mount
    /// namespace of the command's own (root only, so the test needs root and `unshare`).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func aFleetCommandWithoutLibpqSaysWhatToInstall() throws {
        let libpq = try #require(["/usr/lib/x86_64-linux-gnu/libpq.so.5", "/usr/lib/aarch64-linux-gnu/libpq.so.5"]
            .first { FileManager.default.fileExists(atPath: $0) }).resolvingSymlinksInPath
        let binary = try braceletBinary().path
        let script = "mount --bind /dev/null '\(libpq)' && '\(binary)' version && "
            + "'\(binary)' fleet status --postgres postgresql://u:secret@127.0.0.1:1/db"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "sh", "-c", script]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(printed.contains("0.1.0"), "bracelet version runs without libpq: \(printed) \(errors)")
        #expect(process.terminationStatus == 1, "\(errors)")
        #expect(errors.contains("PostgreSQL's client library cannot be loaded"), "\(errors)")
        #expect(errors.contains("install the libpq5 package"), "\(errors)")
        #expect(!errors.contains("secret"))
    }
}

private extension String {
    /// The path with every symbolic link resolved (a bind mount over a link would replace the link's target).
    var resolvingSymlinksInPath: String { URL(fileURLWithPath: self).resolvingSymlinksInPath().path }
}
