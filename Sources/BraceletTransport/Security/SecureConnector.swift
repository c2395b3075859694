import Glibc

/// Connects to a bracelet over L2CAP and returns the link only once it is encrypted at the level the
/// bracelet's pairing state requires (protocol-specs §11.3): raises BT_SECURITY before connecting,
/// lets ``PairingAgent`` answer the passkey, and turns the ways it can fail (wrong passkey, refused
/// pairing, lost bond) into a ``PairingError`` that ends the session. Nothing is written on the link
/// before it returns.
public struct SecureConnector: BraceletConnector, Sendable {
    /// The plain connection (its security is replaced by ``level``).
    public var base: L2CAPConnector
    /// The level required before the link is handed over.
    public var level: LESecurityLevel
    /// The agent answering for the adapter.
    public var agent: PairingAgent
    /// How long pairing may take (SMP gives up after 30 s).
    public var pairingTimeout: Duration
    /// Sees the link's security once it is sufficient, and whether a new pairing happened.
    public var onSecured: @Sendable (LinkSecurity, _ newlyPaired: Bool) -> Void

    /// A connector requiring `level` on `base`'s link.
    public init(base: L2CAPConnector, level: LESecurityLevel, agent: PairingAgent, pairingTimeout: Duration = .seconds(35),
                onSecured: @escaping @Sendable (LinkSecurity, Bool) -> Void = { _, _ in }) {
        self.base = base
        self.level = level
        self.agent = agent
        self.pairingTimeout = pairingTimeout
        self.onSecured = onSecured
    }

    /// The device's address.
    public var label: String { base.address.description }

    /// Connects and waits for the required security; throws ``PairingError`` or ``BluetoothError``.
    public func connect() throws -> SeqPacketSocket {
        let agent = self.agent, address = base.address, stop = base.shouldStop
        agent.reset(address)
        var inner = base
        inner.security = level
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
                if let failure = classify(agent.outcome(address)) { throw failure }
            } while ContinuousClock.now < until
            throw error
        }
        let deadline = ContinuousClock.now + pairingTimeout
        while true {
            agent.service(timeout: .milliseconds(50))
            if let security = LinkSecurity.current(of: socket.descriptor), security.isEncrypted, security.level >= level {
                // The new key's event may trail the encryption by a moment; a typed passkey already says it.
                if !agent.outcome(address).passkeyAnswered { agent.service(timeout: .milliseconds(300)) }
                let outcome = agent.outcome(address)
                onSecured(security, outcome.paired || outcome.passkeyAnswered)
                return socket
            }
            if let failure = classify(agent.outcome(address)) {
                socket.close()
                throw failure
            }
            if Self.isHungUp(socket.descriptor) {
                agent.service(timeout: .milliseconds(300))
                socket.close()
                if let failure = classify(agent.outcome(address)) { throw failure }
                throw LinkError.closed
            }
            if stop() {
                socket.close()
                throw BluetoothError.interrupted(operation: "securing the link to \(label)")
            }
            if ContinuousClock.now >= deadline {
                socket.close()
                throw PairingError.timedOut(address: label, wanted: level, seconds: Int(pairingTimeout.components.seconds))
            }
        }
    }

    /// The error an outcome amounts to; `nil` while nothing failed.
    func classify(_ outcome: PairingAgent.Outcome) -> PairingError? {
        Self.classify(outcome, address: label, passkey: agent.passkey(for: base.address), wanted: level)
    }

    /// A failure after a passkey was typed is a wrong passkey; a failure without one is a refusal;
    /// a link dropped for an authentication failure without any pairing is a lost bond (the
    /// bracelet rejected the stored key).
    static func classify(_ outcome: PairingAgent.Outcome, address: String, passkey: UInt32?, wanted: LESecurityLevel) -> PairingError? {
        if outcome.failure != nil {
            if outcome.passkeyAnswered, let passkey { return .wrongPasskey(address: address, passkey: passkey) }
            return .refused(address: address, wanted: wanted)
        }
        if outcome.disconnectReason == 0x04 && !outcome.passkeyAnswered { return .bondLost(address: address) }
        return nil
    }

    static func isHungUp(_ descriptor: Int32) -> Bool {
        var pfd = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&pfd, 1, 0) > 0 && pfd.revents & Int16(POLLHUP | POLLERR) != 0
    }
}
