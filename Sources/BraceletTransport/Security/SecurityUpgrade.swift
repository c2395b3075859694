/// When and how far a client raises its link's security because the peer refused a request, the
/// rule of BlueZ's own ATT client (`change_security` in src/shared/att.c): Insufficient Encryption
/// (0x0F) asks for an encrypted link (medium) when the link has less; Insufficient Authentication
/// (0x05) asks for an authenticated one (high) when the link has less. The request is then sent once
/// more; a second refusal is the answer. Only a link whose security the user left to the client
/// (`--security auto`) is raised: a level the user chose is kept as chosen.
///
/// BlueZ steps 0x05 up one level at a time (low to medium first); here it goes to high at once, since
/// an unauthenticated link cannot satisfy a peer that asks for authentication and the one retry
/// would be spent on it.
public enum SecurityUpgrade {
    /// The level to raise a link at `current` to after the peer answered `code`; `nil` when the
    /// code is not about security or the link already has that level (raising cannot help).
    public static func level(after code: ATTErrorCode, current: LESecurityLevel) -> LESecurityLevel? {
        let wanted: LESecurityLevel
        switch code {
        case .insufficientEncryption: wanted = .medium
        case .insufficientAuthentication: wanted = .high
        default: return nil
        }
        return current < wanted ? wanted : nil
    }

    /// What to do when the device refused a request with `refusal` and this connection could not
    /// raise the link (a `unix:` link, or a level the user fixed with --security): the option
    /// named is the one that gets the link the refusal asks for.
    public static func advice(after refusal: ATTErrorCode) -> String {
        let level = refusal == .insufficientAuthentication ? "authenticated" : "encrypted"
        return "The device requires an \(level) link, which this connection cannot give (a unix: link, or listen --security "
            + "none or a lower level): connect over the radio with --security auto (the default: the link is raised as the "
            + "device asks) or --security \(level)."
    }
}

/// A link that cannot be raised where it is: the device asked for authentication, which needs
/// passkey entry, and the kernel takes a link's pairing capability when the link is set up (a link
/// set up without a keyboard can only pair Just Works). The connector remembers the level; the
/// session reconnects and the new link is set up and secured for it before anything is sent.
public struct SecurityNeedsNewLink: Error, Sendable, Hashable, CustomStringConvertible {
    /// The level the next link is secured to.
    public var level: LESecurityLevel

    /// The next link is secured to `level`.
    public init(level: LESecurityLevel) { self.level = level }

    /// What happens next.
    public var description: String {
        "the device asks for an \(level == .high ? "authenticated" : "encrypted") link, which this link was not set up to pair for: "
            + "reconnecting to pair with the passkey first"
    }
}
