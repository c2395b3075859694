// Text an operator gives (an option, an environment variable, a file named by an option, an
// enrolment) that reaches logs, status, metrics and stored rows: the one check that it holds no
// control character. A newline in `--via` forged a second log line; an escape sequence in a user id
// recoloured or rewrote the operator's terminal when the log was read. Every option parser, and
// every library entry point that takes such text, calls OperatorText.check.

/// The check of operator-given text for control characters, and the escaped form used to show a
/// refused value without its control characters.
public enum OperatorText {
    /// Throws when `value` holds a character that is not printable text: C0 controls (newline,
    /// carriage return, tab, escape, NUL, ...), DEL, C1 controls (U+0080-U+009F), the Unicode line and
    /// paragraph separators, and the bidirectional overrides and isolates that make a log line read
    /// differently from what it holds. `what` names where the text came from (`--via`, `the user id`).
    public static func check(_ value: String, what: String) throws(OperatorTextError) {
        for (index, scalar) in value.unicodeScalars.enumerated() where isRefused(scalar) {
            throw OperatorTextError(what: what, scalar: scalar, position: index + 1, value: escaped(value))
        }
    }

    /// Whether `scalar` is refused in operator-given text.
    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `value` with every refused character written as `\n`, `\t`, `\r`, `\e` or `\u{XXXX}` (and
    /// backslashes doubled), safe to print in a message.
    public static func escaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{1B}": out += "\\e"
            case "\\": out += "\\\\"
            default:
                if isRefused(scalar) {
                    out += "\\u{" + hexString(UInt16(truncatingIfNeeded: scalar.value), uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A name for a refused character, for messages: `line feed (U+000A)`, `C1 U+0090`.
    public static func name(of scalar: Unicode.Scalar) -> String {
        let code = "U+" + hexString(UInt16(truncatingIfNeeded: scalar.value), uppercase: true)
        let names: [UInt32: String] = [
            0x00: "NUL", 0x07: "bell", 0x08: "backspace", 0x09: "tab", 0x0A: "line feed", 0x0B: "vertical tab",
            0x0C: "form feed", 0x0D: "carriage return", 0x1B: "escape", 0x7F: "DEL", 0x85: "next line",
            0x9B: "control sequence introducer", 0x2028: "line separator", 0x2029: "paragraph separator",
        ]
        if let name = names[scalar.value] { return "\(name) (\(code))" }
        switch scalar.value {
        case 0x80...0x9F: return "C1 \(code)"
        case 0x202A...0x202E, 0x2066...0x2069: return "bidirectional \(code)"
        default: return code
        }
    }
}

/// Operator-given text holding a control character.
public struct OperatorTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the text came from: an option (`--via`), a variable, a field.
    public var what: String
    /// The first refused character.
    public var scalar: Unicode.Scalar
    /// Its position in the text, counting Unicode scalars from 1.
    public var position: Int
    /// The text, escaped (``OperatorText/escaped(_:)``).
    public var value: String

    /// Creates the error.
    public init(what: String, scalar: Unicode.Scalar, position: Int, value: String) {
        self.what = what
        self.scalar = scalar
        self.position = position
        self.value = value
    }

    public var description: String {
        "\(what) holds the control character \(OperatorText.name(of: scalar)) at character \(position) (\"\(value)\"): "
            + "text that reaches logs and status may not hold control characters; give it without"
    }
}
