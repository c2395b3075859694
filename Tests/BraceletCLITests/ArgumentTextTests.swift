import Testing
@testable import BraceletCLI

/// Every argument is checked for control characters before the parser sees it.
@Suite struct ArgumentTextTests {
    func refusal(_ arguments: [String]) -> CLIError? {
        #expect(throws: CLIError.self) { try ArgumentText.check(arguments) }
    }

    @Test func theMessageNamesTheOptionAndTheCharacter() {
        let via = refusal(["listen", "--via", "unix:/tmp/a\nFAKE", "--db", "b.db"])
        #expect(via?.exitCode == 64)
        #expect(via?.description == #"the value of --via holds the control character line feed (U+000A) at character 12 ("unix:/tmp/a\nFAKE"): text that reaches logs and status may not hold control characters; give it without"#)
        let webhook = refusal(["sync", "--db", "b.db", "--webhook=https://example.org/\u{7F}"])
        #expect(webhook?.description.hasPrefix("the value of --webhook holds the control character DEL (U+007F) at character 21") == true, "\(String(describing: webhook))")
        let user = refusal(["gateway", "enroll", "--user", "P-1\u{1B}[31m"])
        #expect(user?.description.hasPrefix("the value of --user holds the control character escape (U+001B)") == true)
        let positional = refusal(["ingest", "a\u{9B}b.btsnoop"])
        #expect(positional?.description.hasPrefix("argument 2 holds the control character control sequence introducer (U+009B)") == true)
        let afterTerminator = refusal(["ingest", "--", "--via\n"])
        #expect(afterTerminator?.description.hasPrefix("argument 3 holds") == true)
    }

    @Test func ordinaryArgumentsPass() throws {
        try ArgumentText.check(["gateway", "enroll", "--db", "b.db", "--via", "unix:/run/a.sock", "--user", "P-0042", "--tz", "Europe/Amsterdam"])
        try ArgumentText.check(["sync", "--db", "Zoë.db", "--webhook=https://example.org/in?x=1", "--once"])
    }
}
