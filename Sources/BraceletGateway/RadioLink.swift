import BraceletTransport
import Foundation

/// A bracelet's secured link as the gateway sets it up and ends it. The IO capability a pairing
/// declares is the adapter's, taken by the kernel when a link is set up, and a passkey bracelet
/// needs another one than a Just Works bracelet: so links are set up and secured one at a time
/// (under `setUp`), each setting its own capability (``SecureConnector`` with `raisesOnDemand`);
/// once up, links transfer side by side.
/// When the sync is over the link is ended at once (``release()``) rather than when the kernel
/// drops it idle about 2 s later, so the bracelet is free for the next central at once.
struct RadioLink: BraceletConnector, Sendable {
    /// Connects and secures the link.
    let secure: SecureConnector
    /// The adapter's pairing agent.
    let agent: PairingAgent
    /// Held while a link is set up and secured.
    let setUp: NSLock
    /// The bracelet, for ending its link.
    let device: ManagementAddress

    func connect() throws -> SeqPacketSocket {
        try setUp.withLock {
            // Management events of other links (their pairings, disconnections) wait in the agent's
            // socket while no link is being set up; they are handled now, so that what this link's
            // connect reads as its outcome is only what happened to it.
            agent.service(timeout: .milliseconds(1))
            return try secure.connect()
        }
    }

    var label: String { secure.label }

    /// Raises the link when the device asks for more security (see ``SecureConnector``).
    func raiseSecurity(of socket: SeqPacketSocket, to level: LESecurityLevel) throws -> LinkSecurity? {
        try secure.raiseSecurity(of: socket, to: level)
    }

    /// Ends the bracelet's link, if it is still up.
    func release() { _ = try? agent.disconnect(device) }
}
