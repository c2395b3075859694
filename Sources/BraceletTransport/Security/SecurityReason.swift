/// Why a link is secured to the level a connector asks for. What the user can do when the device
/// does not give that level depends on it, so a refusal says it (``PairingError/refused(address:wanted:reason:)``).
public enum SecurityReason: Sendable, Hashable {
    /// The device asked for it: it refused a request with Insufficient Encryption (0x0F) or
    /// Insufficient Authentication (0x05), on this link or an earlier one (``SecurityUpgrade``).
    case asked
    /// The user chose it (`listen --security encrypted|authenticated`).
    case chosen
    /// The device's enrolment holds it: given with `gateway enroll --security`, or learned over an
    /// earlier secured link. It is never lowered, so a device at the address that offers less is refused.
    case enrolled
}
