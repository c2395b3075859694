import BraceletProtocol
import Testing

@Suite struct OperatorTextTests {
    @Test func controlCharactersAreRefusedWithWhereAndWhich() {
        let refused: [(String, String)] = [
            ("unix:/tmp/a\nFAKE", "line feed (U+000A)"), ("P-1\u{1B}[31m", "escape (U+001B)"), ("a\rb", "carriage return (U+000D)"),
            ("a\tb", "tab (U+0009)"), ("a\u{0}b", "NUL (U+0000)"), ("a\u{7F}b", "DEL (U+007F)"), ("a\u{85}b", "next line (U+0085)"),
            ("a\u{9B}31m", "control sequence introducer (U+009B)"), ("a\u{90}b", "C1 U+0090"), ("a\u{2028}b", "line separator (U+2028)"),
            ("a\u{202E}b", "bidirectional U+202E"), ("a\u{2066}b", "bidirectional U+2066"), ("a\u{1}b", "U+0001"),
        ]
        for (value, name) in refused {
            let error = #expect(throws: OperatorTextError.self) { try OperatorText.check(value, what: "--via") }
            #expect(error?.description.hasPrefix("--via holds the control character \(name) at character ") == true, "\(String(describing: error))")
            #expect(error?.description.unicodeScalars.contains(where: OperatorText.isRefused) == false, "the message holds no control character")
        }
        let error = #expect(throws: OperatorTextError.self) { try OperatorText.check("unix:/tmp/a\nFAKE", what: "--via") }
        #expect(error?.position == 12)
        #expect(error?.value == #"unix:/tmp/a\nFAKE"#)
    }

    @Test func printableTextOfAnyScriptPasses() throws {
        for value in ["unix:/run/bracelet/a.sock", "P-0042", "Zoë Ångström", "测试-用户", "https://user@example.org/in?x=1", "🙂", "a b", ""] {
            try OperatorText.check(value, what: "--user")
        }
    }

    @Test func escapedTextShowsEveryRefusedCharacterAndKeepsTheRest() {
        #expect(OperatorText.escaped("a\nb\r\t\u{1B}[0m\\\u{85}é") == #"a\nb\r\t\e[0m\\\u{0085}é"#)
    }
}
