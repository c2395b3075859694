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
    /// `pairing` replaces --pairing (a strap pairs as its --measurement-security says).
    func startAgent(adapter: String, pairing: SimulatedPairing? = nil, quiet: Bool, stopped: @escaping @Sendable () -> Bool) throws -> PairingAgent {
        let pairing = pairing ?? self.pairing
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

/// `simulate` options for a bracelet that lives on while it serves: it keeps recording past now,
/// time can run faster than real time, it goes out of range and reboots on a schedule (all in
/// simulated hours from --time-origin).
struct SimulatorLifeOptions: ParsableArguments {
    @Option(help: "Keep recording this many days past now while serving (0: only the --days of history).")
    var liveDays: Int = 0

    @Option(help: "Simulated seconds per real second (the gateway's --time-scale must match).")
    var timeScale: Double = 1

    @Option(help: "Unix time at which simulated and real time agree (default: now).")
    var timeOrigin: Int64?

    @Option(help: "What the simulated clock reads at --time-origin (Unix time; default: the origin).")
    var timeStart: Int64?

    @Option(help: "At this many simulated hours after the start, the bracelet's clock jumps by SECONDS (HOURS:SECONDS).")
    var clockStep: String?

    @Option(help: "Out of range (no connections) every this many simulated hours...")
    var awayEvery: Double?

    @Option(help: "...for this many simulated hours...")
    var awayFor: Double = 0

    @Option(help: "...starting this many simulated hours after --time-origin.")
    var awayPhase: Double = 0

    @Option(help: "Reboot (clock lost, files kept) every this many simulated hours.")
    var rebootEvery: Double?

    /// The clock fixed at parse time, so every use agrees on the origin.
    private static let startSeconds = Int64(Date().timeIntervalSince1970)

    func validate() throws {
        guard (0...400).contains(liveDays) else { throw ValidationError("--live-days must be 0-400") }
        guard timeScale > 0, timeScale <= 1_000_000 else { throw ValidationError("--time-scale must be above 0") }
        if let awayEvery, !(awayEvery > 0 && awayFor >= 0 && awayFor < awayEvery) {
            throw ValidationError("--away-every must be above 0 and --away-for below it")
        }
        if let rebootEvery, rebootEvery <= 0 { throw ValidationError("--reboot-every must be above 0") }
        if clockStep != nil, parsedClockStep == nil { throw ValidationError("--clock-step must be HOURS:SECONDS, e.g. 30:-300") }
    }

    /// The simulated clock.
    var clock: ScaledClock {
        let origin = timeOrigin ?? Self.startSeconds
        return ScaledClock(scale: timeScale, originMilliseconds: origin * 1_000, startMilliseconds: (timeStart ?? origin) * 1_000)
    }

    private func hours(at seconds: Int64) -> Double { Double(seconds - (timeStart ?? timeOrigin ?? Self.startSeconds)) / 3_600 }

    /// `--clock-step HOURS:SECONDS` read.
    var parsedClockStep: (hours: Double, seconds: Int)? {
        guard let parts = clockStep?.split(separator: ":"), parts.count == 2, let h = Double(parts[0]), let s = Int(parts[1]) else { return nil }
        return (h, s)
    }

    /// Whether the clock step is due by simulated time `seconds`.
    func clockStepDue(at seconds: Int64) -> Bool {
        guard let step = parsedClockStep else { return false }
        return hours(at: seconds) >= step.hours
    }

    /// Whether the bracelet is out of range at simulated time `seconds`.
    func isAway(at seconds: Int64) -> Bool {
        guard let awayEvery, awayFor > 0 else { return false }
        let h = hours(at: seconds) - awayPhase
        guard h >= 0 else { return false }
        return h.truncatingRemainder(dividingBy: awayEvery) < awayFor
    }

    /// Reboots due by simulated time `seconds`.
    func reboots(until seconds: Int64) -> Int {
        guard let rebootEvery else { return 0 }
        return max(0, Int(hours(at: seconds) / rebootEvery))
    }
}
