import BraceletProtocol

/// The command line's share of the control-character rule (``OperatorText``): every argument is
/// checked before the parser sees it, so no option can let one through to a log line, the status or
/// the database, and the parser's own messages never echo one to the terminal.
enum ArgumentText {
    /// Throws a ``CLIError`` (exit status 64) naming the option whose value holds a control
    /// character (or the argument, for a positional one or an option name), and the character.
    static func check(_ arguments: [String]) throws {
        var previous: String?
        var positionalOnly = false
        for (index, argument) in arguments.enumerated() {
            defer { previous = argument }
            var what = "argument \(index + 1)"
            var value = argument
            if !positionalOnly, argument == "--" {
                positionalOnly = true
                continue
            }
            if !positionalOnly, argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                what = "the value of " + String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
                try checked(String(argument[..<equals]), what: "argument \(index + 1)")
            } else if !positionalOnly, let option = previous, option.count > 1, option.hasPrefix("-"), option != "--",
                      !option.contains("="), !argument.hasPrefix("-") {
                what = "\(option) (or the argument after it)"
                if option.hasPrefix("--") { what = "the value of \(option)" }
            }
            try checked(value, what: what)
        }
    }

    private static func checked(_ value: String, what: String) throws {
        do { try OperatorText.check(value, what: what) } catch { throw CLIError(error.description, exitCode: 64) }
    }
}
