import BraceletTransport

/// How a simulated bracelet pairs, and the security it then requires (protocol-specs §11).
public enum SimulatedPairing: String, Sendable, Hashable, CaseIterable {
    /// Advertises 0x00; passkey entry with a fixed passkey; writes need an authenticated link.
    case passkey
    /// Advertises 0x01; Just Works; writes need an encrypted link.
    case justWorks = "just-works"
    /// Advertises 0x01 but requires nothing and refuses to bond: an old firmware, for tests of a
    /// gateway facing a bracelet that does not pair.
    case none

    /// The pairing-state byte advertised (§2).
    public var advertisedState: UInt8 { self == .passkey ? 0x00 : 0x01 }

    /// The level protected writes require; `nil` for none.
    public var requiredLevel: LESecurityLevel? {
        switch self {
        case .passkey: .high
        case .justWorks: .medium
        case .none: nil
        }
    }

    /// The IO capability the bracelet declares: KeyboardOnly makes both sides type the fixed
    /// passkey (a display would make the kernel draw a random one).
    public var ioCapability: IOCapability { self == .passkey ? .keyboardOnly : .noInputNoOutput }

    /// Whether the bracelet bonds (off: the kernel refuses a gateway that asks to bond).
    public var bondable: Bool { self != .none }
}

extension SimulatedGATTServer {
    /// The answer to `pdu` instead of executing it, when it is a protected write (§11.1: every
    /// Write Request and Write Command) and the link is below `required`: an Error Response for a
    /// request, nothing for a command. `nil` when it may be executed.
    public func securityRefusal(for pdu: ATTPDU, link: LinkSecurity?, required: LESecurityLevel?) -> [ATTPDU]? {
        guard let required else { return nil }
        switch pdu {
        case .writeRequest(let handle, _):
            guard let code = BraceletSecurity.insufficiency(link: link, required: required) else { return nil }
            return [.errorResponse(requestOpcode: .writeRequest, handle: handle, code: code)]
        case .writeCommand:
            return BraceletSecurity.insufficiency(link: link, required: required) == nil ? nil : []
        default:
            return nil
        }
    }
}
