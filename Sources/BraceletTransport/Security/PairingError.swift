/// Why a secure link to a bracelet could not be made. None improves with retrying as it is: each
/// says what the user has to do.
public enum PairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pairing failed after this side entered `passkey`.
    case wrongPasskey(address: String, passkey: UInt32)
    /// The device refused to pair (no passkey was asked), or cannot give the `wanted` level, which
    /// was asked for because of `reason`.
    case refused(address: String, wanted: LESecurityLevel, reason: SecurityReason)
    /// The bracelet no longer holds the key of this gateway's bond.
    case bondLost(address: String)
    /// The link did not reach `wanted` within `seconds`.
    case timedOut(address: String, wanted: LESecurityLevel, seconds: Int)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case let .wrongPasskey(address, passkey):
            "pairing with \(address) failed after entering passkey \(formatPasskey(passkey)): the passkey is wrong. "
                + "Give the bracelet's passkey with --passkey N (999999 unless it was changed)."
        case let .refused(address, wanted, reason):
            Self.refusal(address: address, link: wanted == .high ? "encrypted and authenticated" : "encrypted", reason: reason)
        case .bondLost(let address):
            "\(address) no longer knows this gateway (the bond was lost: the bracelet was reset or forgot it); nothing was sent. "
                + "Run `bracelet unpair \(address)`, put the bracelet in pairing mode, and sync again."
        case let .timedOut(address, wanted, seconds):
            "the link to \(address) did not become \(wanted == .high ? "encrypted and authenticated" : "encrypted") within \(seconds) s; "
                + "nothing was sent. Check that no other pairing agent answers for this adapter (bluetoothd needs an agent), and retry."
        }
    }
}

extension PairingError {
    /// What a refused pairing means and what to do, by why the level was asked for. Each piece of
    /// advice, followed, gets the link the device can give.
    static func refusal(address: String, link: String, reason: SecurityReason) -> String {
        let pairingMode = "Put it in pairing mode and, if it was paired before, run `bracelet unpair \(address)`; then sync again."
        switch reason {
        case .asked:
            return "\(address) asked for an \(link) link and then refused to pair: it is not in pairing mode, or it no longer "
                + "knows this gateway. " + pairingMode
        case .chosen:
            return "\(address) refused to pair for the \(link) link --security asked for: it may need no pairing at all, or "
                + "only Just Works (a device without a keypad cannot give an authenticated link), or it is not in pairing mode. "
                + "Leave out --security (auto: the link is secured as far as the device asks for), or: " + pairingMode
        case .enrolled:
            return "\(address) did not pair for the \(link) link it is enrolled with (given at enrolment or learned on an "
                + "earlier secured link); a device at this address that offers less is refused, and nothing was sent to it. "
                + "If it is the enrolled device and it was reset: " + pairingMode + " If it was replaced by one that needs "
                + "less, enrol it again with `bracelet gateway enroll --device \(address) --security auto` to learn its level anew."
        }
    }
}

/// A passkey as six digits (`000123`).
func formatPasskey(_ passkey: UInt32) -> String {
    let digits = String(passkey)
    return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
}
