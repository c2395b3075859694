import ArgumentParser
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation

extension SimulatedPairing: ExpressibleByArgument {}

/// `bracelet simulate` options for pairing and bonding over `hci:` (protocol-specs §11).
struct SimulatorPairingOptions: ParsableArguments {
    @Option(help: "How the bracelet pairs over hci: (protocol-specs §11): passkey advertises 0x00 and needs an authenticated link (the documented default), just-works advertises 0x01 and needs an encrypted one, none advertises 0x01, requires nothing and refuses to bond.")
    var pairing: SimulatedPairing = .passkey

    @Option(help: "The bracelet's fixed passkey (0-999999).")
    var passkey: UInt32 = BraceletSecurity.defaultPasskey

    @Option(help: "Keep the bracelet's bonds in this directory across restarts (an empty one is a reset bracelet); without it the adapter keeps them while it lives.")
    var bondDir: String?

    func validate() throws {
        guard passkey <= 999_999 else { throw ValidationError("--passkey must be 0-999999 (six digits), not \(passkey)") }
    }

    /// Makes `adapter` pair as ``pairing`` says, loads the bonds of --bond-dir, and answers the
    /// kernel's pairing requests on a thread of its own until `stopped` returns true.
    func startAgent(adapter: String, quiet: Bool, stopped: @escaping @Sendable () -> Bool) throws -> PairingAgent {
        let directory = bondDir.map(BondDirectory.init(path:))
        let bonds = try directory?.load()
        let settings = PairingAgent.Settings(adapter: adapter, ioCapability: pairing.ioCapability, passkey: pairing == .passkey ? passkey : nil,
                                             bondable: pairing.bondable, bonds: bonds)
        let agent = try PairingAgent(settings: settings) { event in
            if case let .newLongTermKey(key, storeHint) = event, storeHint, let directory {
                do { try directory.save(key) } catch { Log.warning("simulate: cannot keep the bond: \(error)") }
            }
            if !quiet { Log.info("simulate: pairing: \(event)") }
        }
        if !quiet {
            Log.info("simulate: pairing \(pairing.rawValue) on \(agent.adapter.name) (\(agent.secureConnections ? "LE Secure Connections" : "legacy pairing"))"
                       + (bonds.map { ", \($0.count) bond(s) loaded from \(bondDir ?? "")" } ?? ""))
        }
        Thread.detachNewThread {
            while !stopped() { agent.service(timeout: .milliseconds(100)) }
        }
        return agent
    }
}

/// Bonds kept in a directory: one file, `long-term-keys`, one key per line as the 36 bytes of the
/// management interface in hex. Written whole to a temporary file and renamed, so a crash never
/// leaves half a key.
struct BondDirectory: Sendable {
    let path: String
    var file: String { path + "/long-term-keys" }

    /// The keys kept; none for an empty or new directory. Throws when a line is not a key.
    func load() throws -> [LongTermKey] {
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw CLIError("cannot read \(file): \(error.localizedDescription); check the permissions", exitCode: 2)
        }
        var keys: [LongTermKey] = []
        for (number, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
            guard let bytes = bytes(fromHex: String(line)), let key = LongTermKey(wireBytes: bytes) else {
                throw CLIError("\(file) line \(number + 1) is not a 36-byte key in hex; remove the line (that bond is then lost) or the file", exitCode: 2)
            }
            keys.append(key)
        }
        return keys
    }

    /// Adds `key`, replacing an older key of the same peer and role.
    func save(_ key: LongTermKey) throws {
        var keys = try load().filter { !($0.peer == key.peer && $0.central == key.central) }
        keys.append(key)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let text = keys.map { hexString($0.wireBytes) + "\n" }.joined()
            try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIError("cannot write \(file): \(error.localizedDescription); check free space and permissions", exitCode: 2)
        }
    }
}
