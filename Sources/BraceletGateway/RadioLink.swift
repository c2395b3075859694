import BraceletStore
import BraceletTransport
import Foundation

/// A bracelet's secured link as the gateway sets it up and ends it. The IO capability a pairing
/// declares is the adapter's, taken by the kernel when a link is set up, and a passkey bracelet
/// needs another one than a Just Works bracelet: so links are set up and secured one at a time
/// (under `setUp`), each setting its own capability (``SecureConnector`` with `raisesOnDemand`);
/// once up, links transfer side by side.
/// When the sync is over the link is ended at once (``release()``) rather than when the kernel
/// drops it idle about 2 s later, so the bracelet is free for the next central at once.
///
/// The link's security is the enrolment's, never an advertisement's: the level it holds (given at
/// enrolment, or learned once over a secured link and kept: `onLearned`) is required before
/// anything is sent, and a device that does not give it is refused (`onRefused`, an operator
/// event). Without one the device is connected unencrypted and the link raised as far as it asks.
struct RadioLink: BraceletConnector, Sendable {
    /// Connects and secures the link.
    let secure: SecureConnector
    /// The adapter's pairing agent.
    let agent: PairingAgent
    /// Held while a link is set up and secured.
    let setUp: NSLock
    /// The bracelet, for ending its link.
    let device: ManagementAddress
    /// The level the enrolment requires, if any.
    let required: EnrolledLinkSecurity?
    /// Sees a device that did not give the level the enrolment requires.
    let onRefused: @Sendable (_ required: EnrolledLinkSecurity, PairingError) -> Void

    /// The link to an enrolled device at `base`'s address: secured to `required` before anything is
    /// sent, and raised when the device asks for more; `onLearned` sees each level a link was
    /// secured to (the enrolment keeps the highest).
    init(base: L2CAPConnector, required: EnrolledLinkSecurity?, agent: PairingAgent, setUp: NSLock,
         onLearned: @escaping @Sendable (EnrolledLinkSecurity) -> Void,
         onRefused: @escaping @Sendable (EnrolledLinkSecurity, PairingError) -> Void) {
        // Raised on demand, the connector also sets the pairing capability each link needs.
        secure = SecureConnector(base: base, level: required.map(Self.level) ?? .low, reason: .enrolled, agent: agent,
                                 raisesOnDemand: true, onSecured: { security, _ in
                                     if let level = Self.enrolled(security) { onLearned(level) }
                                 })
        self.agent = agent
        self.setUp = setUp
        device = ManagementAddress(base.address, base.addressType)
        self.required = required
        self.onRefused = onRefused
    }

    func connect() throws -> SeqPacketSocket {
        try setUp.withLock {
            // Management events of other links (their pairings, disconnections) wait in the agent's
            // socket while no link is being set up; they are handled now, so that what this link's
            // connect reads as its outcome is only what happened to it.
            agent.service(timeout: .milliseconds(1))
            do { return try secure.connect() } catch let refusal as PairingError {
                if let required { onRefused(required, refusal) }
                throw refusal
            }
        }
    }

    var label: String { secure.label }

    /// Raises the link when the device asks for more security (see ``SecureConnector``).
    func raiseSecurity(of socket: SeqPacketSocket, to level: LESecurityLevel) throws -> LinkSecurity? {
        try secure.raiseSecurity(of: socket, to: level)
    }

    /// Ends the bracelet's link, if it is still up.
    func release() { _ = try? agent.disconnect(device) }

    /// The BT_SECURITY level an enrolled requirement asks for.
    static func level(_ required: EnrolledLinkSecurity) -> LESecurityLevel {
        required == .authenticated ? .high : .medium
    }

    /// The requirement a secured link proves the device can give; `nil` for a link not encrypted.
    static func enrolled(_ security: LinkSecurity) -> EnrolledLinkSecurity? {
        guard security.isEncrypted else { return nil }
        return security.level == .high ? .authenticated : .encrypted
    }
}
