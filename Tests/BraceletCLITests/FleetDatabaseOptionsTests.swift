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

    @Test func oneSourceOfTheURLAtATime() throws {
        let both = try FleetDatabaseOptions.parse(["--postgres", "postgresql://db/fleet", "--postgres-file", "/nonexistent"])
        #expect(throws: ValidationError.self) { try both.server() }
        let missing = try FleetDatabaseOptions.parse(["--postgres-file", "/nonexistent/fleet.url"])
        let error = #expect(throws: CLIError.self) { try missing.server() }
        #expect(error?.description.contains("cannot read --postgres-file /nonexistent/fleet.url") == true)
    }
}
