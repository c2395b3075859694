import ArgumentParser
import Foundation
import Testing
@testable import BraceletCLI

/// `--help` as an 80-column terminal shows it, for `bracelet` and every command.
@Suite struct HelpTextTests {
    static func helps() -> [(name: String, text: String)] {
        allCommands().map { path, type in
            (path.isEmpty ? "bracelet" : "bracelet " + path.joined(separator: " "),
             path.isEmpty ? Bracelet.helpMessage(columns: 80) : Bracelet.helpMessage(for: type, columns: 80))
        }
    }

    /// `bracelet` and every command under it, groups (`gateway`, `person`, ...) as well as leaves.
    static func allCommands(_ command: any ParsableCommand.Type = Bracelet.self, path: [String] = []) -> [(path: [String], type: any ParsableCommand.Type)] {
        [(path, command)] + command.configuration.subcommands.flatMap { sub in
            allCommands(sub, path: path + [sub.configuration.commandName ?? sub._commandName])
        }
    }

    /// Whether `line` is a command a reader copies: `bracelet SUBCOMMAND ...` (or `sudo bracelet ...`).
    static func isExample(_ line: String) -> Bool {
        let words = line.split(separator: " ")
        let start = words.first == "sudo" ? 1 : 0
        guard words.count > start + 1, words[start] == "bracelet" else { return false }
        return Bracelet.configuration.subcommands.contains { ($0.configuration.commandName ?? $0._commandName) == words[start + 1] }
    }

    /// An example is an indented line of its own that a reader can copy and paste: never wider than
    /// 80 columns, never wrapped into a second line, a long one continued with ` \` onto a line
    /// indented further.
    @Test func examplesAreIndentedAndContinuedWithBackslashes() {
        #expect(Self.helps().count > leafCommands().count, "groups such as gateway are checked too")
        for (name, text) in Self.helps() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var continued = false
            for (index, line) in lines.enumerated() where continued || Self.isExample(line.trimmingCharacters(in: .whitespaces)) {
                #expect(line.hasPrefix(continued ? "    " : "  "), "\(name): not indented: \(line)")
                #expect(line.count <= 80, "\(name): wider than 80 columns: \(line)")
                continued = line.hasSuffix(" \\")
                guard !continued, index + 1 < lines.count else { continue }
                let next = lines[index + 1]
                #expect(next.isEmpty || Self.isExample(next.trimmingCharacters(in: .whitespaces)),
                        "\(name): an example wrapped: \(line) / \(next)")
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

/// `bracelet report --day D` shows the day with its week, as the README promises, with no --days.
@Suite struct ReportWeekTests {
    @Test func theWeekIsShownWithoutDays() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/r.db", html = folder + "/day.html"
        try IngestCommand.parse([capturesFolder + "/v2-three-days.btsnoop", "--db", db, "--tz", "America/New_York"]).run()
        try ReportCommand.parse(["--db", db, "--day", "2026-06-18", "-o", html]).run()
        let page = contents(html)
        #expect(page.contains("<h2>Week</h2>"))
        // Every stored day of the 7 ending on 2026-06-18, the report day marked.
        for date in ["2026-06-16", "2026-06-17"] { #expect(page.contains("<tr><th>\(date)</th>")) }
        #expect(page.contains("<tr class=\"today\"><th>2026-06-18</th>"))
        try ReportCommand.parse(["--db", db, "--day", "2026-06-18", "--days", "1", "-o", html]).run()
        #expect(!contents(html).contains("<h2>Week</h2>"))
    }
}
