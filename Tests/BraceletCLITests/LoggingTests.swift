import ArgumentParser
import Foundation
import Testing
@testable import BraceletCLI

/// Every command that runs (no subcommands of its own), with the words that name it, found from the
/// command configuration so that a new command is covered without editing this test.
func leafCommands(_ command: any ParsableCommand.Type = Bracelet.self, path: [String] = []) -> [(path: [String], type: any ParsableCommand.Type)] {
    let subcommands = command.configuration.subcommands
    if subcommands.isEmpty { return [(path, command)] }
    return subcommands.flatMap { sub in
        leafCommands(sub, path: path + [sub.configuration.commandName ?? sub._commandName])
    }
}

@Suite struct LoggingTests {
    @Test func everyCommandTakesLogLevelDebug() throws {
        let leaves = leafCommands()
        #expect(leaves.count >= 18)
        for (path, type) in leaves {
            let name = path.joined(separator: " ")
            #expect(type is any LoggingCommand.Type, "bracelet \(name) does not apply --log-level")
            // A value outside the four is refused by name: the option exists on this command.
            let bad = Bracelet.message(for: #expect(throws: (any Error).self, "bracelet \(name)") {
                _ = try Bracelet.parseAsRoot(path + ["--log-level", "loud"])
            } ?? ValidationError(""))
            #expect(bad.contains("'loud'") && bad.contains("--log-level"), "bracelet \(name): \(bad)")
            // `debug` is accepted: parsing succeeds, or fails only for the command's own required input.
            do {
                let command = try Bracelet.parseAsRoot(path + ["--log-level", "debug"])
                #expect((command as? any LoggingCommand)?.log.level == .debug, "bracelet \(name)")
            } catch {
                let message = Bracelet.message(for: error)
                #expect(!message.contains("log-level") && !message.contains("debug"), "bracelet \(name): \(message)")
            }
        }
    }

    @Test func quietIsErrorsOnlyAndRefusesAnotherLevel() throws {
        #expect(try VersionCommand.parse(["--quiet"]).log.level == .error)
        #expect(try VersionCommand.parse([]).log.level == .info)
        #expect(try VersionCommand.parse(["--quiet", "--log-level", "error"]).log.level == .error)
        let message = VersionCommand.message(for: #expect(throws: (any Error).self) {
            try VersionCommand.parse(["--quiet", "--log-level", "debug"])
        }!)
        #expect(message.contains("--quiet") && message.contains("--log-level debug"))
    }

    @Test func levelsRankAsSyslogPriorities() {
        #expect(LogLevel.allCases.map(\.priority) == [3, 4, 6, 7])
        #expect(LogLevel.error < .warning && LogLevel.warning < .info && LogLevel.info < .debug)
    }

    @Test func journalLinesCarryThePriorityPrefixOnEveryLine() {
        #expect(Log.formatted(.warning, "warning: a\nsecond", journal: true) == "<4>warning: a\n<4>second\n")
        #expect(Log.formatted(.error, "x", journal: true) == "<3>x\n")
        #expect(Log.formatted(.debug, "x", journal: true) == "<7>x\n")
        #expect(Log.formatted(.info, "note: x", journal: false) == "note: x\n")
    }
}
