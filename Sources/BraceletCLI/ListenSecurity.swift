import ArgumentParser
import BraceletProtocol
import BraceletTransport
import Foundation

/// The link security `bracelet listen` asks for before its first write (protocol-specs §11.3).
enum ListenSecurity: String, ExpressibleByArgument, CaseIterable {
    /// What the device asks for: nothing until it refuses a request for insufficient encryption
    /// (paired Just Works) or authentication (paired with the passkey), learned from its answers
    /// and never guessed, so a bracelet and a strap, heard advertising or not, are treated alike.
    case auto
    /// No pairing, no encryption: health data in clear. Only for bracelets that cannot pair.
    case none
    /// Encrypted (Just Works or a bond).
    case encrypted
    /// Encrypted and authenticated (passkey entry or a passkey bond).
    case authenticated
}

/// `bracelet listen` options for pairing and encryption.
struct ListenSecurityOptions: ParsableArguments {
    @Option(help: "Link security: auto secures the link as far as the device asks for (it pairs Just Works when a request is refused for insufficient encryption, with the passkey for insufficient authentication); encrypted or authenticated require that level before the first write; none sends in clear.")
    var security: ListenSecurity = .auto

    @Option(help: "Passkey to enter when the bracelet asks for one (its manual's 999999 unless changed).")
    var passkey: UInt32 = BraceletSecurity.defaultPasskey

    func validate() throws {
        guard passkey <= 999_999 else { throw ValidationError("--passkey must be 0-999999 (six digits), not \(passkey)") }
    }

    /// The level to require before the first write: low for auto (raised when the device asks),
    /// `nil` for none.
    var level: LESecurityLevel? {
        switch security {
        case .auto: .low
        case .none: nil
        case .encrypted: .medium
        case .authenticated: .high
        }
    }

    /// `base` as it is (--security none) or wrapped so that the link is secured before any write,
    /// with the passkey answered through bluetoothd's agent API when bluetoothd runs, else through
    /// the management interface. `onSecured` sees the link's security once it is sufficient. With
    /// --security auto the link starts unencrypted and is raised when the device refuses a request
    /// for insufficient encryption or authentication.
    func connector(base: L2CAPConnector, quiet: Bool,
                   onSecured: @escaping @Sendable (LinkSecurity, Bool) -> Void) throws(BluetoothError) -> BraceletConnector {
        guard let level else {
            if !quiet { Log.info("listen: --security none: the link is not encrypted; health data travels in clear") }
            return base
        }
        // KeyboardOnly on both sides makes the pairing passkey entry with a typed passkey; a
        // display-capable side would have the kernel draw a random passkey instead.
        let capability = IOCapability.forPairing(at: level)
        let settings = PairingAgent.Settings(adapter: base.adapter, ioCapability: capability, passkey: passkey, bondable: true)
        let agent = try PairingAgent(settings: settings) { event in
            // A link coming up is no pairing (the session says it connected).
            if case .connected = event { return }
            if !quiet { Log.info("listen: pairing: \(event)") }
        }
        if Self.bluetoothdIsRunning() {
            // bluetoothd sees the same passkey request and, without an agent, refuses it (often
            // first): the passkey goes through its agent API instead, and only from there. With
            // auto the device may ask for authentication, so the agent is one that types a passkey
            // (the capability each link declares is still set when it is set up).
            let declared = security == .auto ? IOCapability.keyboardOnly : capability
            let agentSettings = BluezAgent.Settings(adapter: agent.adapter.name, device: base.address, passkey: passkey, capability: declared)
            do {
                let bluez = try BluezAgent(settings: agentSettings)
                agent.answerPasskeysThroughBluetoothd(bluez)
                if !quiet {
                    Log.info("listen: bluetoothd is running: the passkey is given through its agent API "
                               + "(default agent \(bluez.objectPath), \(declared == .keyboardOnly ? "KeyboardOnly" : "NoInputNoOutput"))")
                }
            } catch {
                Log.warning("warning: bluetoothd is running, but listen could not register its pairing agent: \(error). Without an agent "
                           + "bluetoothd refuses the bracelet's passkey request and a new pairing fails as if the passkey were wrong "
                           + "(a bonded bracelet still syncs). Fix that, or pair once with bluetoothctl (agent KeyboardOnly, "
                           + "default-agent, pair \(base.address), passkey \(passkey)).")
            }
        }
        if security == .auto, !quiet {
            Log.info("listen: --security auto: connecting unencrypted; the link is secured as far as \(base.address) asks for "
                       + "(--security encrypted|authenticated to require a level first)")
        }
        return SecureConnector(base: base, level: level, reason: .chosen, agent: agent, raisesOnDemand: security == .auto, onSecured: onSecured)
    }

    /// Whether a process named bluetoothd runs (read from /proc).
    static func bluetoothdIsRunning() -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { entry in
            entry.allSatisfy(\.isNumber)
                && (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "bluetoothd"
        }
    }
}

extension ListenCommand {
    /// Says on standard error how the link was secured (unless --quiet), and notes it in `secured`.
    func securedHandler(noting secured: SecuredLinks) -> @Sendable (LinkSecurity, Bool) -> Void {
        let quiet = self.quiet
        return { security, newlyPaired in
            secured.note()
            if !quiet { Log.info("listen: link \(security)" + (newlyPaired ? "; paired and bonded now" : "; bonded before, no pairing")) }
        }
    }
}
