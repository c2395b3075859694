import CBlueZ
import Glibc
import Synchronization

/// Connects to a device over L2CAP and returns the link only once it is encrypted at ``level``, the
/// level known to be needed (protocol-specs §11.3): raises BT_SECURITY before connecting, lets
/// ``PairingAgent`` answer the passkey, and turns the ways it can fail (wrong passkey, refused
/// pairing, lost bond) into a ``PairingError`` that ends the session and says, by ``reason``, what to
/// do. Nothing is written on the link before it returns.
///
/// With ``raisesOnDemand`` the link's security is also raised later, when the device refuses a
/// request for insufficient encryption or authentication (``SecurityUpgrade``): what a device needs
/// is learned from what it answers, never guessed from its name or advertisement, so a device
/// nothing is known of is connected at ``level`` `.low` and paired only when it asks for it. A level
/// reached that way is asked for at once on the device's next connection in this process (a gateway
/// makes a connector per sync, and keeps it in the enrolment: ``onSecured``), as BlueZ asks for an
/// encrypted link at once with a device it holds a key of. Authentication cannot be raised on a
/// link set up for Just Works: the connector then asks for a new link (``SecurityNeedsNewLink``),
/// which it sets up for passkey entry.
public struct SecureConnector: BraceletConnector, Sendable {
    /// The plain connection (its security is replaced by ``level``).
    public var base: L2CAPConnector
    /// The level required before the link is handed over; `.low` hands it over unencrypted.
    public var level: LESecurityLevel
    /// Why ``level`` is required (what a refusal of it tells the user to do).
    public var reason: SecurityReason
    /// The agent answering for the adapter.
    public var agent: PairingAgent
    /// How long pairing may take (SMP gives up after 30 s).
    public var pairingTimeout: Duration
    /// Whether the link is raised when the device refuses a request for insufficient security
    /// (the user left the level to the device: `--security auto`).
    public var raisesOnDemand: Bool
    /// Sees the link's security once it is sufficient, and whether a new pairing happened.
    public var onSecured: @Sendable (LinkSecurity, _ newlyPaired: Bool) -> Void
    /// The highest level the device asked for on an earlier link (of any connector in this process).
    private var learned: LevelMemory { LevelMemory.of(base.address) }

    /// A connector requiring `level`, for `reason`, on `base`'s link.
    public init(base: L2CAPConnector, level: LESecurityLevel, reason: SecurityReason = .chosen, agent: PairingAgent,
                pairingTimeout: Duration = .seconds(35), raisesOnDemand: Bool = false,
                onSecured: @escaping @Sendable (LinkSecurity, Bool) -> Void = { _, _ in }) {
        self.base = base
        self.level = level
        self.reason = reason
        self.agent = agent
        self.pairingTimeout = pairingTimeout
        self.raisesOnDemand = raisesOnDemand
        self.onSecured = onSecured
    }

    /// The device's address.
    public var label: String { base.address.description }

    /// Connects and waits for the required security; throws ``PairingError`` or ``BluetoothError``.
    public func connect() throws -> SeqPacketSocket {
        let agent = self.agent, address = base.address, stop = base.shouldStop
        let wanted = max(level, learned.level)
        // A level above the required one was asked for by the device on an earlier link.
        let reason = wanted > level ? .asked : self.reason
        agent.reset(address)
        // Raised on demand, the link is set up with the pairing capability its level needs.
        if raisesOnDemand { try agent.setIOCapability(.forPairing(at: wanted)) }
        learned.connected(at: wanted)
        var inner = base
        inner.security = wanted
        // The agent is served while the connect waits: the kernel may ask for the passkey meanwhile.
        inner.shouldStop = {
            agent.service(timeout: .milliseconds(1))
            return stop()
        }
        let socket: SeqPacketSocket
        do { socket = try inner.connect() } catch {
            // A failed pairing ends the connect with EACCES or ECONNREFUSED, and the management
            // event that says why can trail it by more than 200 ms (seen in a loaded VM): for those
            // two, wait for the event up to 2 s, so a refusal is never reported as missing rights.
            let pairingMayHaveFailed: Bool
            switch error {
            case .permissionDenied, .connectionRefused: pairingMayHaveFailed = true
            default: pairingMayHaveFailed = false
            }
            let until = ContinuousClock.now + (pairingMayHaveFailed ? .seconds(2) : .milliseconds(200))
            repeat {
                agent.service(timeout: .milliseconds(50))
                if let failure = classify(agent.outcome(address), wanted: wanted, reason: reason) { throw failure }
            } while ContinuousClock.now < until
            throw error
        }
        if wanted == .low { return socket }
        do { _ = try awaitSecurity(of: socket, wanted, reason: reason) } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// Raises BT_SECURITY on the connected `socket` to `wanted` and waits, answering the pairing,
    /// until the link is encrypted at that level (the kernel starts encryption with a key it holds,
    /// or pairs). `nil` unless ``raisesOnDemand``. Throws ``PairingError``, ``BluetoothError`` or
    /// ``LinkError`` (the link dropped meanwhile); the socket stays open for its owner to close.
    public func raiseSecurity(of socket: SeqPacketSocket, to wanted: LESecurityLevel) throws -> LinkSecurity? {
        guard raisesOnDemand else { return nil }
        if let security = LinkSecurity.current(of: socket.descriptor), security.isEncrypted, security.level >= wanted { return security }
        // Authentication needs a link set up for passkey entry: the next one is. This one is ended
        // now, since the kernel keeps an idle link about 2 s and a reconnect meanwhile reuses it
        // (measured in the VM: the passkey pairing then fails, Just Works being all it can do).
        // Now, not just before the next connect: the device needs a moment after the link ends to
        // advertise again (the session's reconnect backoff gives it), and a connect started before
        // it does can hang (measured in the VM: every later connect to either emulated controller
        // then timed out).
        if wanted == .high, learned.setUpFor < .high {
            learned.raise(to: .high)
            _ = try? agent.disconnect(ManagementAddress(base.address, base.addressType))
            throw SecurityNeedsNewLink(level: .high)
        }
        agent.reset(base.address)
        if cbluez_set_security(socket.descriptor, wanted.rawValue) < 0 {
            // The kernel answers EINVAL when the link already has the level; anything else is a failure.
            let code = errno
            if let security = LinkSecurity.current(of: socket.descriptor), security.isEncrypted, security.level >= wanted { return security }
            throw BluetoothError.classify(errno: code, operation: "raising the link to \(base.address) to \(wanted) security", adapter: base.adapter)
        }
        let security = try awaitSecurity(of: socket, wanted, reason: .asked)
        learned.raise(to: wanted)
        return security
    }

    /// Waits until the link under `socket` is encrypted at `wanted` (asked for because of `reason`)
    /// or better, serving the agent; throws the pairing's failure, a dropped link, a stop request or
    /// the timeout.
    private func awaitSecurity(of socket: SeqPacketSocket, _ wanted: LESecurityLevel, reason: SecurityReason) throws -> LinkSecurity {
        let agent = self.agent, address = base.address, stop = base.shouldStop
        let deadline = ContinuousClock.now + pairingTimeout
        while true {
            agent.service(timeout: .milliseconds(50))
            if let security = LinkSecurity.current(of: socket.descriptor), security.isEncrypted, security.level >= wanted {
                // The new key's event may trail the encryption by a moment; a typed passkey already says it.
                if !agent.outcome(address).passkeyAnswered { agent.service(timeout: .milliseconds(300)) }
                let outcome = agent.outcome(address)
                onSecured(security, outcome.paired || outcome.passkeyAnswered)
                return security
            }
            if let failure = classify(agent.outcome(address), wanted: wanted, reason: reason) { throw failure }
            if Self.isHungUp(socket.descriptor) {
                agent.service(timeout: .milliseconds(300))
                if let failure = classify(agent.outcome(address), wanted: wanted, reason: reason) { throw failure }
                throw LinkError.closed
            }
            if stop() { throw BluetoothError.interrupted(operation: "securing the link to \(label)") }
            if ContinuousClock.now >= deadline {
                throw PairingError.timedOut(address: label, wanted: wanted, seconds: Int(pairingTimeout.components.seconds))
            }
        }
    }

    /// The error an outcome amounts to; `nil` while nothing failed.
    func classify(_ outcome: PairingAgent.Outcome, wanted: LESecurityLevel, reason: SecurityReason) -> PairingError? {
        Self.classify(outcome, address: label, passkey: agent.passkey(for: base.address), wanted: wanted, reason: reason)
    }

    /// A failure after a passkey was typed is a wrong passkey; a failure without one is a refusal;
    /// a link dropped for an authentication failure without any pairing is a lost bond (the
    /// bracelet rejected the stored key).
    static func classify(_ outcome: PairingAgent.Outcome, address: String, passkey: UInt32?, wanted: LESecurityLevel,
                         reason: SecurityReason) -> PairingError? {
        if outcome.failure != nil {
            if outcome.passkeyAnswered, let passkey { return .wrongPasskey(address: address, passkey: passkey) }
            return .refused(address: address, wanted: wanted, reason: reason)
        }
        if outcome.disconnectReason == 0x04 && !outcome.passkeyAnswered { return .bondLost(address: address) }
        return nil
    }

    static func isHungUp(_ descriptor: Int32) -> Bool {
        var pfd = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&pfd, 1, 0) > 0 && pfd.revents & Int16(POLLHUP | POLLERR) != 0
    }
}

/// The highest level a device asked for, and the level its current link was set up for, kept per
/// device for the life of the process.
private final class LevelMemory: Sendable {
    private static let devices = Mutex<[BluetoothAddress: LevelMemory]>([:])
    /// The memory of `address`.
    static func of(_ address: BluetoothAddress) -> LevelMemory {
        devices.withLock { all in
            if let known = all[address] { return known }
            let made = LevelMemory()
            all[address] = made
            return made
        }
    }

    private let value = Mutex<(asked: LESecurityLevel, setUp: LESecurityLevel)>((.low, .low))
    var level: LESecurityLevel { value.withLock { $0.asked } }
    var setUpFor: LESecurityLevel { value.withLock { $0.setUp } }
    func raise(to level: LESecurityLevel) { value.withLock { $0.asked = max($0.asked, level) } }
    func connected(at level: LESecurityLevel) { value.withLock { $0.setUp = level } }
}
