import Foundation
import Testing

/// Runs the built `bracelet` with `environment` added to this process's: its exit status, standard
/// output, and standard error (kept in a file, so a child writing much to both never blocks).
func runBuiltBracelet(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: Data, err: String) {
    let process = Process()
    process.executableURL = try builtBracelet()
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("bracelet-stderr-\(UUID().uuidString)")
    try #require(FileManager.default.createFile(atPath: errors.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: errors) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, out, String(decoding: try Data(contentsOf: errors), as: UTF8.self))
}

/// `bracelet`'s diagnostics as journald reads them: the process run as systemd runs a service.
@Suite struct JournalPrefixTests {
    /// Runs `bracelet arguments` with `environment` added; returns its standard error.
    static func standardError(_ arguments: [String], environment: [String: String]) throws -> String {
        try runBuiltBracelet(arguments, environment: environment).err
    }

    @Test func underSystemdEachLineStartsWithItsPriorityAndTheLevelFilters() throws {
        let capture = Bundled.captures.appendingPathComponent("v1-day.btsnoop").path
        // Without --tz, summarize writes an info note about the days' zone; its data goes to stdout.
        let journal = try Self.standardError(["summarize", capture], environment: ["JOURNAL_STREAM": "8:12345"])
        let lines = journal.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") }, "\(journal)")
        #expect(journal.contains("<6>note: no --tz given"))
        // On a terminal (JOURNAL_STREAM empty or unset) the same line has no prefix.
        let terminal = try Self.standardError(["summarize", capture], environment: ["JOURNAL_STREAM": ""])
        #expect(terminal.hasPrefix("note: no --tz given"), "\(terminal)")
        let warnings = try Self.standardError(["summarize", capture, "--log-level", "warning"], environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(!warnings.contains("note:"), "\(warnings)")
        let failed = try Self.standardError(["summarize", "/nonexistent.btsnoop", "--quiet"], environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(failed.hasPrefix("<3>Error: "), "\(failed)")
    }
}

/// What `bracelet ingest` tells a person, run as a person runs it.
@Suite struct IngestDiagnosticsTests {
    @Test func emptyVitalityFieldsAreNamedAsScoreNamesThemNotByInternalNames() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-notes-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let capture = Bundled.captures.appendingPathComponent("v2-three-days.btsnoop").path
        let errors = try JournalPrefixTests.standardError(["ingest", capture, "--db", folder + "/b.db", "--tz", "America/New_York", "--age", "35"],
                                                          environment: ["JOURNAL_STREAM": ""])
        // The first day of the capture starts after its night: its sleep metrics are not recorded.
        #expect(errors.contains("2026-06-16: not recorded that day, left empty (never 0): Sleep duration (h)"), "\(errors)")
        #expect(!errors.contains("BraceletDay."), "\(errors)")
    }

    @Test func aFailedIngestOfANonCaptureLeavesNoDatabaseBehind() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-none-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("date,bpm\n2026-01-01,60\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.csv"))
        let errors = try JournalPrefixTests.standardError(["ingest", folder + "/notes.csv", "--db", folder + "/new.db"], environment: ["JOURNAL_STREAM": ""])
        #expect(errors.contains("Error: "), "\(errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.csv"])
        // A database that existed before is never removed.
        let existing = Bundled.captures.appendingPathComponent("v1-day.btsnoop").path
        _ = try JournalPrefixTests.standardError(["ingest", existing, "--db", folder + "/kept.db", "--tz", "UTC"], environment: [:])
        _ = try JournalPrefixTests.standardError(["ingest", folder + "/notes.csv", "--db", folder + "/kept.db"], environment: [:])
        #expect(FileManager.default.fileExists(atPath: folder + "/kept.db"))
    }
}
