/// What a study participant id (a user id) may be: the one rule every command that takes one
/// applies (`person set --user`, `gateway enroll --user`, `sync --set-user`), and the store before
/// it keeps one.
///
/// A user id travels with every delivery (a header, the body, the fleet database's rows), so it
/// must say who a person is to the study and nothing more: the integration documents require that
/// a user id carry no personal data. An id that looks like an e-mail address, a phone number (or
/// another personal number: a national identity or card number) or a bank account (IBAN) is
/// refused with the reason, unless a team that must use such ids says so.
public enum UserID {
    /// The longest id, in characters.
    public static let maximumLength = 64

    /// Whether `id` has the form of a user id: 1 to 64 characters from `A-Z a-z 0-9 . _ - : @`.
    /// The id travels in an HTTP header and in JSON, so it is kept to characters neither must escape.
    public static func isWellFormed(_ id: String) -> Bool {
        (1...maximumLength).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:@".contains($0)) }
    }

    /// Checks `id`: the personal data it looks like (unless `allowingPersonalData`), then its form.
    /// Returns the kind of personal data an allowed id looks like (``personalData(in:)``, worked
    /// out once here), for the warning that it travels with every delivery; `nil` when none.
    ///
    /// - Throws: ``UserIDError/personalData(_:kind:)`` or ``UserIDError/malformed(_:)``, each saying
    ///   what to give instead.
    @discardableResult
    public static func check(_ id: String, allowingPersonalData: Bool = false) throws(UserIDError) -> String? {
        let kind = personalData(in: id)
        if !allowingPersonalData, let kind { throw .personalData(id, kind: kind) }
        guard isWellFormed(id) else { throw .malformed(id) }
        return kind
    }

    /// The kind of personal data `id` looks like (`an e-mail address`, ...), `nil` when none.
    public static func personalData(in id: String) -> String? {
        if looksLikeEmail(id) { return "an e-mail address" }
        if looksLikePersonalNumber(id) { return "a phone number or another personal number" }
        if looksLikeIBAN(id) { return "a bank account number (IBAN)" }
        return nil
    }

    /// `local@domain.tld` anywhere in the id (parts joined by `:` are looked at one by one): a
    /// local part, and a domain with a dot and a top-level name of two or more letters.
    static func looksLikeEmail(_ id: String) -> Bool {
        id.split(separator: ":").contains { part in
            let halves = part.split(separator: "@", omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty else { return false }
            let labels = halves[1].split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let top = labels.last else { return false }
            return top.count >= 2 && top.allSatisfy { $0.isASCII && $0.isLetter }
        }
    }

    /// Nine or more digits and nothing but digits and the separators numbers are written with
    /// (`+ - . ( ) /` and spaces), after an optional `tel:`: a phone number (E.164 has up to 15
    /// digits), or a national identity, social security or card number (9 to 19).
    static func looksLikePersonalNumber(_ id: String) -> Bool {
        let number = id.lowercased().hasPrefix("tel:") ? id.dropFirst(4) : Substring(id)
        guard number.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.()/ ".contains($0)) }) else { return false }
        return (9...19).contains(number.filter(\.isNumber).count)
    }

    /// An IBAN: a country code, two check digits and 11 to 30 letters or digits whose ISO 13616
    /// check (mod 97) holds; spaces and dashes between groups are ignored.
    static func looksLikeIBAN(_ id: String) -> Bool {
        let text = Array(id.uppercased().filter { $0 != "-" && $0 != " " })
        guard (15...34).contains(text.count), text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              text[0].isLetter, text[1].isLetter, text[2].isNumber, text[3].isNumber else { return false }
        var remainder = 0
        for character in text[4...] + text[..<4] {
            let value = character.isNumber ? Int(String(character))! : Int(character.asciiValue! - 55)
            remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97
        }
        return remainder == 1
    }
}

/// A user id that cannot be kept, with what to give instead.
public enum UserIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The id looks like personal data of the kind named.
    case personalData(String, kind: String)
    /// The id is empty, too long or has characters outside `A-Z a-z 0-9 . _ - : @`.
    case malformed(String)

    /// What was wrong and what to do.
    public var description: String {
        switch self {
        case let .personalData(id, kind):
            "user id \(String(reflecting: id)) looks like \(kind): a user id is sent with every delivery and must carry no personal data. "
                + "Give a study id such as P-0042 (a team that must use such ids passes --allow-personal-user-id)."
        case .malformed(let id):
            "user id \(String(reflecting: id)) is not valid: use 1 to \(UserID.maximumLength) characters from A-Z a-z 0-9 . _ - : @ (e.g. P-0042)."
        }
    }
}
