import ArgumentParser
import Testing
@testable import BraceletCLI

/// `--help` as an 80-column terminal shows it, for `bracelet` and every command.
@Suite struct HelpTextTests {
    static func helps() -> [(name: String, text: String)] {
        [("bracelet", Bracelet.helpMessage(columns: 80))] + leafCommands().map { path, type in
            ("bracelet " + path.joined(separator: " "), Bracelet.helpMessage(for: type, columns: 80))
        }
    }

    /// An example is a line of its own that a reader can copy: never wrapped into a second line at
    /// column 0, a long one continued with ` \` onto an indented line.
    @Test func examplesAreNeverWrappedMidCommand() {
        for (name, text) in Self.helps() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() where line.hasPrefix("  bracelet ") || (index > 0 && lines[index - 1].hasSuffix(" \\")) {
                #expect(line.count <= 80, "\(name): \(line)")
                guard index + 1 < lines.count else { continue }
                let next = lines[index + 1]
                #expect(next.isEmpty || next.hasPrefix("  "), "\(name): an example wrapped: \(line) / \(next)")
            }
        }
    }

    /// A `command` in the prose is never split across two lines.
    @Test func quotedCommandsStayOnOneLine() {
        for (name, text) in Self.helps() {
            for line in text.split(separator: "\n") {
                #expect(line.filter { $0 == "`" }.count % 2 == 0, "\(name): \(line)")
            }
        }
    }

    @Test func braceletHelpStartsWithAShortCommandNotA29000LineReplay() {
        let help = Bracelet.helpMessage(columns: 80)
        #expect(!help.contains("bracelet replay captures/v1-day.btsnoop`"))
        #expect(help.contains("  bracelet scan"))
        #expect(help.contains("--format table"))
    }

    @Test func syncPayloadOffersOnlyTheJSONFormats() {
        let help = Bracelet.helpMessage(for: SyncCommand.self, columns: 200)
        let line = help.split(separator: "\n").first { $0.contains("--payload <format>") }
        #expect(line?.contains("omh, ieee1752, fhir, rook") == true)
        #expect(line?.contains("csv") == false)
    }

    @Test func listenHelpNamesBothPlacesFilesGo() {
        let help = ListenCommand.configuration.discussion
        #expect(help.contains("--db PATH stores it in the database"))
        #expect(help.contains("With neither, no file is transferred"))
    }
}

/// Messages that advise a person name only what the command in front of them has.
@Suite struct AdviceTests {
    @Test func reportOfADayWithoutDataAdvisesNoOptionReportLacks() throws {
        let db = try scratchFolder() + "/r.db"
        try IngestCommand.parse([capturesFolder + "/v1-day.btsnoop", "--db", db, "--tz", "UTC"]).run()
        let error = #expect(throws: CLIError.self) {
            try ReportCommand.parse(["--db", db, "--day", "2020-01-01", "-o", db + ".html"]).run()
        }
        #expect(error?.exitCode == 2)
        #expect(error?.description.contains("no daily summary") == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("--from") == false, "\(error?.description ?? "")")
        // report's --from is the study page's (--study), which the day's error does not concern.
        #expect(ReportCommand.helpMessage().contains("With --study: the first day shown"))
    }
}
