import ArgumentParser
import BraceletDecoder
import BraceletProtocol
import BraceletTransport
import Foundation
import Synchronization

/// Set by SIGINT/SIGTERM: the scan ends early and prints what it heard.
private let scanInterrupted = Atomic<Bool>(false)

/// `bracelet scan`: list the bracelets advertising nearby.
struct ScanCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan for V1/V2 bracelets over Bluetooth LE and list them.",
        discussion: """
            Listens for LE advertisements for --timeout seconds and prints every bracelet heard (by the \
            0xFFFF service data): address and address type, RSSI, model, serial, pairing state and name. \
            Discovers through the kernel's management interface, so it works where bluetoothd owns the \
            adapter (when another program is discovering, it listens to that discovery); it restarts its \
            own discovery every 2 s, so a controller that reports each advertiser once per scan start \
            reports it again. Lists bracelets only (a heart-rate strap is not listed; `bracelet listen \
            --device ADDR` finds any advertiser's address type). Needs root or \
            CAP_NET_ADMIN; the adapter must be powered (`bluetoothctl power on` or `btmgmt power on`).

            Exit status: 0 when the scan ran (even if nothing was found), 2 when Bluetooth is not \
            usable (no kernel support, no adapter, adapter down, no permission); the message says what to do.
            """
    )

    @Option(help: "How long to listen, in seconds.")
    var timeout: Double = 10

    @Option(help: "The adapter to scan with (default: the first one).")
    var adapter: String?

    @Flag(help: "Print one JSON object per bracelet instead of a table.")
    var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        let found: [DiscoveredBracelet]
        signal(SIGINT) { _ in scanInterrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in scanInterrupted.store(true, ordering: .relaxed) }
        do { found = try LEScanner(adapter: adapter, shouldStop: { scanInterrupted.load(ordering: .relaxed) }).scan(seconds: timeout) } catch {
            Log.error("bracelet scan: \(error)")
            throw ExitCode(2)
        }
        if json {
            for b in found { print(Self.jsonLine(b)) }
            return
        }
        if found.isEmpty {
            Log.warning("no bracelet heard in \(timeout) s; check that it is charged and near, and not connected to a phone")
            return
        }
        print("address            type    rssi  model  serial    pairing        name")
        for b in found {
            let model = b.advertisement.model.map { "\($0)" } ?? "id \(b.advertisement.modelID)"
            print("\(b.address)  \(b.addressType.description.padding(toLength: 6, withPad: " ", startingAt: 0))  "
                  + "\((b.rssi.map(String.init) ?? "-").padding(toLength: 4, withPad: " ", startingAt: 0))  "
                  + "\(model.padding(toLength: 5, withPad: " ", startingAt: 0))  \(b.advertisement.serial.padding(toLength: 8, withPad: " ", startingAt: 0))  "
                  + "\(Self.pairing(b.advertisement.pairingState).padding(toLength: 13, withPad: " ", startingAt: 0))  \(b.name ?? "")")
        }
    }

    static func pairing(_ state: UInt8) -> String {
        switch state {
        case 0x00: "passkey"
        case 0x01: "no-passkey"
        case 0xAA: "pairing+passkey"
        case 0xAB: "pairing"
        default: "0x" + hexString(state)
        }
    }

    /// One bracelet as a JSON line, written by the canonical writer (keys sorted; `null` for what the
    /// advertisement did not carry).
    static func jsonLine(_ b: DiscoveredBracelet) -> String {
        String(decoding: CanonicalJSON.object([
            ("address", .string(b.address.description)), ("address_type", .string(b.addressType.description)),
            ("rssi", b.rssi.map { .int(Int64($0)) } ?? .null), ("model", b.advertisement.model.map { .string("\($0)") } ?? .null),
            ("model_id", .uint(UInt64(b.advertisement.modelID))), ("serial", .string(b.advertisement.serial)),
            ("pairing", .string(pairing(b.advertisement.pairingState))), ("name", b.name.map { .string($0) } ?? .null),
        ]), as: UTF8.self)
    }
}
