import ArgumentParser
import BraceletProtocol
import BraceletTransport
import Foundation

/// The link security `bracelet listen` asks for before its first write (protocol-specs §11.3).
enum ListenSecurity: String, ExpressibleByArgument, CaseIterable {
    /// What the advertised pairing state requires; authenticated when it was not heard (the
    /// documented default). A standard sensor: nothing until it refuses a request for it.
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
    @Option(help: "Link security before the first write: auto follows the bracelet's advertised pairing state (authenticated when not heard), and pairs a standard sensor (a strap) only when it refuses a request for insufficient encryption or authentication; none sends in clear.")
    var security: ListenSecurity = .auto

    @Option(help: "Passkey to enter when the bracelet asks for one (its manual's 999999 unless changed).")
    var passkey: UInt32 = BraceletSecurity.defaultPasskey

    func validate() throws {
        guard passkey <= 999_999 else { throw ValidationError("--passkey must be 0-999999 (six digits), not \(passkey)") }
    }

    /// The level to require for a bracelet that advertised `pairingState` (`nil`: not heard), or
    /// for a standard sensor (low: it is paired when it asks); `nil` for none.
    func level(pairingState: UInt8?, standardSensor: Bool = false) -> LESecurityLevel? {
        switch security {
        case .auto: standardSensor ? .low : BraceletSecurity.requiredLevel(pairingState: pairingState)
        case .none: nil
        case .encrypted: .medium
        case .authenticated: .high
        }
    }

    /// `base` as it is (--security none) or wrapped so that the link is secured before any write,
    /// with the passkey answered through bluetoothd's agent API when bluetoothd runs, else through
    /// the management interface. `onSecured` sees the link's security once it is sufficient. With
    /// --security auto the link is also raised when the device refuses a request for insufficient
    /// encryption or authentication (a standard sensor starts unencrypted and is paired only then).
    func connector(base: L2CAPConnector, pairingState: UInt8?, standardSensor: Bool = false, quiet: Bool,
                   onSecured: @escaping @Sendable (LinkSecurity, Bool) -> Void) throws(BluetoothError) -> BraceletConnector {
        guard let level = level(pairingState: pairingState, standardSensor: standardSensor) else {
            if !quiet { Log.info("listen: --security none: the link is not encrypted; health data travels in clear") }
            return base
        }
        // KeyboardOnly on both sides makes the pairing passkey entry with a typed passkey; a
        // display-capable side would have the kernel draw a random passkey instead.
        let capability = IOCapability.forPairing(at: level)
        let settings = PairingAgent.Settings(adapter: base.adapter, ioCapability: capability, passkey: passkey, bondable: true)
        let agent = try PairingAgent(settings: settings) { event in
            if !quiet { Log.info("listen: pairing: \(event)") }
        }
        if Self.bluetoothdIsRunning() {
            // bluetoothd sees the same passkey request and, without an agent, refuses it (often
            // first): the passkey goes through its agent API instead, and only from there.
            let agentSettings = BluezAgent.Settings(adapter: agent.adapter.name, device: base.address, passkey: passkey, capability: capability)
            do {
                let bluez = try BluezAgent(settings: agentSettings)
                agent.answerPasskeysThroughBluetoothd(bluez)
                if !quiet {
                    Log.info("listen: bluetoothd is running: the passkey is given through its agent API "
                               + "(default agent \(bluez.objectPath), \(capability == .keyboardOnly ? "KeyboardOnly" : "NoInputNoOutput"))")
                }
            } catch {
                Log.warning("warning: bluetoothd is running, but listen could not register its pairing agent: \(error). Without an agent "
                           + "bluetoothd refuses the bracelet's passkey request and a new pairing fails as if the passkey were wrong "
                           + "(a bonded bracelet still syncs). Fix that, or pair once with bluetoothctl (agent KeyboardOnly, "
                           + "default-agent, pair \(base.address), passkey \(passkey)).")
            }
        }
        return SecureConnector(base: base, level: level, agent: agent, raisesOnDemand: security == .auto, onSecured: onSecured)
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
    /// Says on standard error how the link was secured (unless --quiet).
    func securedHandler() -> @Sendable (LinkSecurity, Bool) -> Void {
        let quiet = self.quiet
        return { security, newlyPaired in
            if !quiet { Log.info("listen: link \(security)" + (newlyPaired ? "; paired and bonded now" : "; bonded before, no pairing")) }
        }
    }
}
