/// The one way a URL an operator gave is shown: in log lines, error messages, `/metrics` labels,
/// `gateway status`, sink names and the delivery log. It is parsed, never searched and replaced:
/// replacing a password's text also replaced every other occurrence of those letters.
///
/// What may be a credential is replaced by `***`:
/// - the user info: the user name stays when a password follows it (`gw:***@host`, the password is
///   the secret then); a user info without a password is hidden whole (`***@host`), since a single
///   value there is usually a token;
/// - every query value (`?token=***`), except those of the connection settings that are never
///   secret (``visibleQueryKeys``: `sslmode`, `connect_timeout`, ...), which say how a connection
///   was made; a query item without `=` is hidden whole;
/// - a fragment (`#***`).
/// The scheme, host, port and path stay. Text that is not a URL (no `scheme://`) is read as libpq's
/// `key=value` connection string: values are hidden as in a query, and a word with `@` loses what
/// comes before it.
public enum URLRedaction {
    /// Query keys (lowercased) whose values are shown: libpq connection settings that hold no secret.
    public static let visibleQueryKeys: Set<String> = [
        "sslmode", "sslrootcert", "sslcert", "sslcrl", "sslsni", "sslnegotiation", "requiressl", "channel_binding", "gssencmode",
        "connect_timeout", "target_session_attrs", "load_balance_hosts", "application_name", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout",
    ]

    /// `url` with its user info, query values and fragment hidden as the type describes.
    public static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), isScheme(url[..<schemeEnd.lowerBound]) else { return redactedConnectionString(url) }
        var rest = url[schemeEnd.upperBound...]
        // A `?` or `#` typed inside the user info (a password such as `pa?ss`) is not the start of a
        // query or fragment: when an `@` comes before the first `/`, the user info runs to the last
        // such `@`, whatever it holds. Parsed from the first `?` instead, the password's first part
        // was shown as the host.
        let zone = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        var userInfo = ""
        if let at = zone.lastIndex(of: "@") {
            let info = rest[..<at]
            if let colon = info.firstIndex(of: ":"), colon != info.startIndex, !info[..<colon].contains(where: { $0 == "?" || $0 == "#" }) {
                userInfo = info[..<colon] + ":***@"
            } else {
                userInfo = "***@"
            }
            rest = rest[rest.index(after: at)...]
        }
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest.index(after: hash) == rest.endIndex ? "#" : "#***"
            rest = rest[..<hash]
        }
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = "?" + redactedQuery(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        return String(url[..<schemeEnd.upperBound]) + userInfo + rest[..<authorityEnd] + rest[authorityEnd...] + query + fragment
    }

    /// `text` with every URL in it redacted: each run of characters between spaces that holds
    /// `scheme://` is parsed and shown as ``redacted(_:)`` shows it; the rest stays as it is. For
    /// texts made before URLs were redacted (a sink name, an error of the delivery log).
    public static func redactingURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var word = ""
        func flush() {
            if let start = word.range(of: "://"), let schemeStart = word[..<start.lowerBound].lastIndex(where: { !isSchemeCharacter($0) }) {
                // Text glued before the scheme (a quote, a parenthesis) stays as it is.
                let head = word[...schemeStart]
                out += head + redacted(String(word[word.index(after: schemeStart)...]))
            } else if word.contains("://") {
                out += redacted(word)
            } else {
                out += word
            }
            word = ""
        }
        for character in text {
            if character == " " || character == "\t" || character == "\n" {
                flush()
                out.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return out
    }

    /// Whether `character` may be part of a URI scheme.
    private static func isSchemeCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (0x41...0x5A).contains(ascii) || (0x61...0x7A).contains(ascii) || (0x30...0x39).contains(ascii) || ascii == 0x2B || ascii == 0x2D || ascii == 0x2E
    }

    /// Whether `text` is a URI scheme (an ASCII letter, then letters, digits, `+`, `-` or `.`).
    private static func isScheme(_ text: Substring) -> Bool {
        func letter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = text.utf8.first, letter(first) else { return false }
        return text.utf8.allSatisfy { letter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// A query (without its `?`) with the values hidden but those of ``visibleQueryKeys``.
    private static func redactedQuery(_ query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard !item.isEmpty else { return "" }
            guard let equals = item.firstIndex(of: "=") else { return "***" }
            let key = item[..<equals]
            return visibleQueryKeys.contains(key.lowercased()) ? String(item) : key + "=***"
        }.joined(separator: "&")
    }

    /// Text that is no URL, read as libpq's `key=value ...` connection string (spaces around `=`
    /// allowed, values in single quotes may hold spaces).
    private static func redactedConnectionString(_ text: String) -> String {
        let characters = Array(text)
        var words: [String] = []
        var current = ""
        var inQuotes = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == "\\" && index < characters.count {
                current.append(character)
                current.append(characters[index])
                index += 1
                continue
            }
            if character == "'" { inQuotes.toggle() }
            guard character.isWhitespace && !inQuotes else {
                current.append(character)
                continue
            }
            // Spaces around `=` belong to one `key=value` word.
            var next = index
            while next < characters.count && characters[next].isWhitespace { next += 1 }
            if current.hasSuffix("=") || (next < characters.count && characters[next] == "=") {
                index = next
                continue
            }
            if !current.isEmpty { words.append(current) }
            current = ""
            index = next
        }
        if !current.isEmpty { words.append(current) }
        return words.map { word -> String in
            if let equals = word.firstIndex(of: "=") {
                return visibleQueryKeys.contains(word[..<equals].lowercased()) ? word : word[...equals] + "***"
            }
            if let at = word.lastIndex(of: "@") { return "***" + word[at...] }
            return word
        }.joined(separator: " ")
    }
}
