import BraceletGateway
import BraceletStore
import Foundation
import Testing

/// Control characters in operator-given text never reach a log line, the status or the database.
@Suite(.serialized) struct ControlCharacterTests {
    @Test func theCommandsRefuseThemInViaUserAndURLs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/c.db"
        let cases: [([String], String)] = [
            (["listen", "--via", "unix:/tmp/a\nsync: delivered everything", "--db", db], "the value of --via holds the control character line feed (U+000A)"),
            (["gateway", "enroll", "--db", db, "--via", "unix:\(folder)/s.sock", "--user", "P-1\u{1B}[2J"], "the value of --user holds the control character escape (U+001B)"),
            (["sync", "--db", db, "--webhook", "http://127.0.0.1:9/in\u{7F}", "--once"], "the value of --webhook holds the control character DEL (U+007F)"),
            (["sync", "--db", db, "--postgres=postgresql://gw@db\u{85}/fleet"], "the value of --postgres holds the control character next line (U+0085)"),
        ]
        for (arguments, message) in cases {
            let run = try bracelet(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.err.contains(message), "\(run.err)")
            #expect(!run.err.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7F}" || $0 == "\u{85}" }, "the message echoes no control character")
        }
        // Nothing was enrolled or created.
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func theVariableAndTheLibraryEntryPointsRefuseThemToo() throws {
        let process = Process()
        process.executableURL = try braceletBinary()
        process.arguments = ["fleet", "status"]
        process.environment = ["BRACELET_POSTGRES_URL": "postgresql://gw@db/fleet\n"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(text.contains("$BRACELET_POSTGRES_URL holds the control character line feed (U+000A) at character 25"), "\(text)")

        #expect(throws: GatewayError.invalidEndpoint("unix:/tmp/a\u{1B}b")) { try GatewayEndpoint("unix:/tmp/a\u{1B}b") }
        #expect(GatewayError.invalidEndpoint("unix:/tmp/a\u{1B}b").description.contains(#"'unix:/tmp/a\eb' is not a bracelet endpoint: it holds the control character escape (U+001B)"#))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/e.db")
        #expect(throws: StoreError.self) { try store.enrol(GatewayEnrolment(endpoint: "unix:/tmp/a\nb")) }
        #expect(throws: StoreError.self) { try store.enrol(GatewayEnrolment(endpoint: "unix:/tmp/a", user: "P-1\u{9B}")) }
        #expect(try store.enrolments().isEmpty)
    }
}
