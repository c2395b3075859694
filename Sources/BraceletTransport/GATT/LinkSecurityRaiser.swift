/// Raises a GATT client's link when the peer refuses a request for insufficient encryption or
/// authentication (the rule is ``SecurityUpgrade``'s), and remembers how far the link got, so that
/// each level is asked for at most once per link.
public final class LinkSecurityRaiser {
    /// The link's level as far as known (low until encrypted).
    public private(set) var level: LESecurityLevel
    private let raise: (LESecurityLevel) throws -> LinkSecurity?
    private let onRaised: (ATTErrorCode, LinkSecurity) -> Void

    /// A raiser for a link now at `current` (`nil`: not encrypted, or not a Bluetooth link).
    /// `raise` brings the link to a level and returns its security, or `nil` when it cannot;
    /// `onRaised` sees each raise that succeeded, with the refusal that asked for it.
    public init(current: LinkSecurity?, raise: @escaping (LESecurityLevel) throws -> LinkSecurity?,
                onRaised: @escaping (ATTErrorCode, LinkSecurity) -> Void = { _, _ in }) {
        self.level = current.map { $0.isEncrypted ? $0.level : .low } ?? .low
        self.raise = raise
        self.onRaised = onRaised
    }

    /// Raises the link as `refusal` asks; returns its security when the refused request is worth
    /// sending again, `nil` when raising does not apply (another code, the level already reached,
    /// a link that cannot be raised). Throws what the pairing ran into.
    func raise(after refusal: ATTErrorCode) throws -> LinkSecurity? {
        guard let wanted = SecurityUpgrade.level(after: refusal, current: level), let security = try raise(wanted) else { return nil }
        level = max(level, security.isEncrypted ? security.level : .low)
        guard level >= wanted else { return nil }
        onRaised(refusal, security)
        return security
    }
}
