/// The security rules of protocol-specs §11 that both sides share.
public enum BraceletSecurity {
    /// The passkey of both models unless changed (a vendor fact).
    public static let defaultPasskey: UInt32 = 999_999

    /// The link level a bracelet advertising `pairingState` requires for protected attributes:
    /// high (passkey) for 0x00 / 0xAA, medium (encrypted) for 0x01 / 0xAB. An unknown state, or
    /// none heard, is treated as the documented default 0x00.
    public static func requiredLevel(pairingState: UInt8?) -> LESecurityLevel {
        switch pairingState {
        case 0x01, 0xAB: .medium
        default: .high
        }
    }

    /// What the bracelet answers a protected write with on a link of `link` when it requires
    /// `required` (§11.2): `nil` when the link suffices; else 0x05 Insufficient Authentication when
    /// authentication is required, 0x0F Insufficient Encryption when only encryption is and the link
    /// has none.
    public static func insufficiency(link: LinkSecurity?, required: LESecurityLevel) -> ATTErrorCode? {
        let effective = link.map { $0.isEncrypted ? $0.level : .low } ?? .low
        if effective >= required { return nil }
        return required == .high ? .insufficientAuthentication : .insufficientEncryption
    }
}
