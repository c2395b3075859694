/// Why a secure link to a bracelet could not be made. None improves with retrying as it is: each
/// says what the user has to do.
public enum PairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pairing failed after this side entered `passkey`.
    case wrongPasskey(address: String, passkey: UInt32)
    /// The bracelet refused to pair (no passkey was asked), or cannot give the `wanted` level.
    case refused(address: String, wanted: LESecurityLevel)
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
        case let .refused(address, wanted):
            "\(address) refused to pair (link \(wanted == .high ? "encrypted and authenticated" : "encrypted") wanted): "
                + "it is not in pairing mode, or it no longer knows this gateway. Put the bracelet in pairing mode and, "
                + "if it was paired before, run `bracelet unpair \(address)`; then sync again. "
                + (wanted == .high ? "A bracelet without a passkey needs --security encrypted." : "")
        case .bondLost(let address):
            "\(address) no longer knows this gateway (the bond was lost: the bracelet was reset or forgot it); nothing was sent. "
                + "Run `bracelet unpair \(address)`, put the bracelet in pairing mode, and sync again."
        case let .timedOut(address, wanted, seconds):
            "the link to \(address) did not become \(wanted == .high ? "encrypted and authenticated" : "encrypted") within \(seconds) s; "
                + "nothing was sent. Check that no other pairing agent answers for this adapter (bluetoothd needs an agent), and retry."
        }
    }
}

/// A passkey as six digits (`000123`).
func formatPasskey(_ passkey: UInt32) -> String {
    let digits = String(passkey)
    return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
}
