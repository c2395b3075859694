import ArgumentParser
import Foundation
import Testing
@testable import BraceletCLI

@Suite struct FleetDatabaseOptionsTests {
    /// A URL file others can read is refused (it holds a password); a private one is read, and the
    /// server it names prints without the password.
    @Test func theURLFileMustBePrivate() throws {
        let path = try scratchFolder() + "/fleet.url"
        try Data("postgresql://gw_ward3:s3cret@db.example.org/bracelet?sslmode=verify-full\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let open = try FleetDatabaseOptions.parse(["--postgres-file", path])
        let error = #expect(throws: CLIError.self) { try open.server() }
        #expect(error?.description.contains("has mode 644") == true && error?.description.contains("chmod 600") == true)
        #expect(error?.description.contains("s3cret") == false)

        chmod(path, 0o600)
        let server = try FleetDatabaseOptions.parse(["--postgres-file", path]).server()
        #expect(server.description == "postgresql://gw_ward3:***@db.example.org/bracelet?sslmode=verify-full")
        #expect(server.hasPassword)
    }

    /// A secret file that cannot give a line says what was wrong with it (a folder, an empty file),
    /// never the system's text of an unrelated errno ("Success").
    @Test func aSecretFileThatGivesNoLineSaysWhy() throws {
        let folder = try scratchFolder()
        let inside = folder + "/secrets"
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let empty = folder + "/empty"
        try Data().write(to: URL(fileURLWithPath: empty))
        chmod(empty, 0o600)
        let blank = folder + "/blank"
        try Data("\n  \nsecond line\n".utf8).write(to: URL(fileURLWithPath: blank))
        chmod(blank, 0o600)
        for (path, message) in [(inside, "\(inside) is a folder, not a --secret-file: name a file inside it"),
                                (empty, "--secret-file \(empty) is empty: put the secret on its first line"),
                                (blank, "--secret-file \(blank) holds nothing on its first line: put the secret on its first line")] {
            let error = #expect(throws: CLIError.self) { try SinkSecrets.privateFirstLine(path, option: "--secret-file", what: "a secret") }
            #expect(error?.description == message, "\(error?.description ?? "")")
            #expect(error?.description.contains("Success") == false)
        }
        let missing = #expect(throws: CLIError.self) { try SinkSecrets.privateFirstLine(folder + "/none", option: "--secret-file", what: "a secret") }
        #expect(missing?.description == "no --secret-file at \(folder)/none: check the path")
    }

    @Test func oneSourceOfTheURLAtATime() throws {
        let both = try FleetDatabaseOptions.parse(["--postgres", "postgresql://db/fleet", "--postgres-file", "/nonexistent"])
        #expect(throws: ValidationError.self) { try both.server() }
        let missing = try FleetDatabaseOptions.parse(["--postgres-file", "/nonexistent/fleet.url"])
        let error = #expect(throws: CLIError.self) { try missing.server() }
        #expect(error?.description.contains("no --postgres-file at /nonexistent/fleet.url: check the path") == true)
    }
}

@Suite struct FleetScoreOptionsTests {
    /// What would fail the same way for every device is refused before connecting; the ages come
    /// from --age, --ages or both.
    @Test func aWindowOrAgeNoDeviceCouldHaveIsRefusedUpFront() throws {
        for (arguments, message) in [(["--days", "31", "--age", "40"], "window length 31 days is outside 7-30. Choose --days between 7 and 30."),
                                     (["--days", "7", "--min-days", "8", "--age", "40"],
                                      "minimum days with data 8 must be between 1 and the window length 7. Choose --min-days in 1...7."),
                                     (["--age", "17"], "--age 17 is outside 18-120"),
                                     (["--end", "2026-02-30", "--age", "40"], "--end 2026-02-30 is not a date"),
                                     ([], "give --age N (every device) or --ages FILE")] {
            let error = #expect(throws: (any Error).self) { try FleetScoreCommand.parse(arguments) }
            #expect(FleetScoreCommand.message(for: error!).contains(message), "\(arguments)")
        }
        #expect(try FleetScoreCommand.parse(["--ages", "roster.csv"]).window.builder.length == 7)
        let both = try FleetScoreCommand.parse(["--age", "40", "--ages", "roster.csv", "--days", "30", "--end", "2026-06-30"])
        #expect(both.window.builder.end?.description == "2026-06-30" && both.window.builder.length == 30)
    }

    /// `score` refuses the same windows with the same words, from the same check, while reading its options.
    @Test func scoreAndFleetScoreRefuseAWindowAlike() throws {
        for arguments in [["--days", "31"], ["--days", "7", "--min-days", "8"], ["--days", "10", "--min-days", "0"]] {
            let fleet = #expect(throws: (any Error).self) { try FleetScoreCommand.parse(arguments + ["--age", "40"]) }
            let single = #expect(throws: (any Error).self) { try ScoreCommand.parse(arguments + ["--db", "x.db", "--age", "40"]) }
            #expect(FleetScoreCommand.message(for: fleet!) == ScoreCommand.message(for: single!), "\(arguments)")
            #expect(ScoreCommand.message(for: single!).contains("Choose --"), "\(arguments)")
        }
    }

    /// A roster line that is not SUBJECT,AGE is named before anything connects.
    @Test func aBadRosterLineIsNamed() throws {
        let path = try scratchFolder() + "/roster.csv"
        try Data("subject,age\nP-1,40\nP-2,old\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CLIError.self) { try FleetScoreCommand.parse(["--ages", path]).scoringAges() }
        #expect(error?.description.contains("roster.csv line 3 is \"P-2,old\"") == true)
        try Data("P-1,40\nSN9,71\n".utf8).write(to: URL(fileURLWithPath: path))
        let ages = try FleetScoreCommand.parse(["--ages", path, "--age", "50"]).scoringAges()
        #expect(ages.age(device: "SN9", user: "P-1") == 71 && ages.age(device: "SN1", user: "P-1") == 40 && ages.age(device: "SN2", user: nil) == 50)
    }
}
