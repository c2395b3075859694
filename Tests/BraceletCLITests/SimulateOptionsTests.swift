import ArgumentParser
import Testing
@testable import BraceletCLI

@Suite struct SimulateOptionsTests {
    /// The command log is asked for with --verbose; --quiet (or a level above info) and --verbose
    /// contradict each other and are refused, never one silently dropped.
    @Test func verboseAndQuietExcludeEachOther() throws {
        #expect(try SimulateCommand.parse(["--serve", "unix:/tmp/s.sock", "--verbose"]).verbose)
        #expect(try !SimulateCommand.parse(["--serve", "unix:/tmp/s.sock"]).verbose)
        for quiet in [["--quiet"], ["--log-level", "warning"]] {
            do {
                _ = try SimulateCommand.parse(["--serve", "unix:/tmp/s.sock", "--verbose"] + quiet)
                Issue.record("--verbose with \(quiet) was taken")
            } catch {
                #expect(Bracelet.message(for: error).contains("--verbose writes the command log"))
            }
        }
    }
}
