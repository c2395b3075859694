import ArgumentParser
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Synchronization

/// Set by SIGINT/SIGTERM: the simulator stops advertising and exits.
private let simulateInterrupted = Atomic<Bool>(false)

/// `bracelet simulate`: serve a simulated bracelet on a Unix socket or as an LE peripheral.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve a simulated V1/V2 bracelet (GATT server) on a Unix socket or as an LE peripheral.",
        discussion: """
            --serve unix:PATH: the socket carries the same ATT PDUs as a BlueZ L2CAP ATT channel, so \
            `bracelet listen --via unix:PATH` runs the real client stack against it. --serve hci:hciN: the \
            adapter becomes the bracelet: powered, connectable and advertising the bracelet service data \
            through the kernel's management interface, serving LE connections on the ATT channel (CID 4), \
            for `bracelet scan` and `bracelet listen --device ADDR` on another adapter or machine (needs \
            root or CAP_NET_ADMIN). The same GATT database, transfer protocol and faults serve both. The bracelet holds --days of history from \
            the physiological model ending now, sends live Heart Rate notifications once a second while \
            subscribed, and keeps its files and faults across connections. Serves until Ctrl-C.

            Faults (repeatable): drop-link-at:BYTES, lose-packet:N, repeat-packet:N, corrupt-crc:N, \
            slow:MS, reboot-at:BYTES, clock-reset. Packet numbers count data packets from 0.
            """
    )

    @Option(help: "Bracelet model: v1 or v2.")
    var model: String = "v2"

    @Option(help: "Where to serve: unix:PATH or hci:hciN.")
    var serve: String

    @Option(help: "Days of recorded history (1...400).")
    var days: Int = 7

    @Option(help: "Seed of the physiological model.")
    var seed: UInt64 = PhysiologyScenario.defaultSeed

    @Option(help: "Serial number (1-8 printable ASCII characters).")
    var serial: String?

    @Option(name: .customLong("fault"), help: "A fault to inject (repeatable).")
    var faults: [String] = []

    // Test-only: a lower file size cap makes a short history arrive as many sealed files.
    @Option(help: .hidden)
    var maxFileSize: Int = Int(Response.maximumFileSize)

    @OptionGroup(title: "Pairing (hci: only)") var security: SimulatorPairingOptions

    @Flag(help: "Do not log commands and connections on standard error.")
    var quiet = false

    func run() throws {
        let deviceModel: DeviceModel
        switch model.lowercased() {
        case "v1": deviceModel = .v1
        case "v2": deviceModel = .v2
        default: throw ValidationError("--model must be v1 or v2, not '\(model)'")
        }
        let isHCI = serve.hasPrefix("hci:")
        guard (serve.hasPrefix("unix:") || isHCI), serve.count > (isHCI ? 4 : 5) else {
            throw ValidationError("--serve must be unix:PATH (e.g. unix:/tmp/bracelet.sock) or hci:hciN (e.g. hci:hci1), not '\(serve)'")
        }
        var injected = FirmwareFaults()
        for fault in faults {
            do { try injected.add(fault) } catch { throw ValidationError(error.description) }
        }
        let history: PhysiologyModel
        do {
            history = try PhysiologyModel.simulatedHistory(model: deviceModel, serial: serial ?? (deviceModel == .v1 ? "V1SIM001" : "V2SIM001"),
                                                           days: days, seed: seed, endingAt: Int64(Date().timeIntervalSince1970))
        } catch {
            throw ValidationError("cannot build the simulated history: \(error)")
        }
        let windows = history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
        let firmware = SimulatedFirmware(history: history, beatWindows: windows, faults: injected, maximumFileSize: maxFileSize)
        let quiet = self.quiet
        let server = SimulatorServer(server: SimulatedGATTServer(firmware: firmware), live: LiveHeartRateSource(model: history),
                                     requiredSecurity: isHCI ? security.pairing.requiredLevel : nil, onEvent: { event in
                                         if quiet { return }
                                         if case .heartRate = event { return }
                                         printError("simulate: \(event)")
                                     })
        signal(SIGINT) { _ in simulateInterrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in simulateInterrupted.store(true, ordering: .relaxed) }
        Thread.detachNewThread {
            while !simulateInterrupted.load(ordering: .relaxed) { usleep(100_000) }
            server.stop()
        }
        let description = "\(deviceModel) bracelet \(history.serial) with \(days) day(s) of history"
            + (faults.isEmpty ? "" : " with faults \(faults.joined(separator: ", "))")
        do {
            if isHCI {
                let adapter = String(serve.dropFirst(4))
                let advertisement = BraceletAdvertisement.simulated(model: deviceModel, serial: history.serial,
                                                                    pairingState: security.pairing.advertisedState)
                let peripheral: LEPeripheral
                do {
                    _ = try security.startAgent(adapter: adapter, quiet: quiet, stopped: { server.isStopped })
                    peripheral = try LEPeripheral(adapter: adapter, advertisingData: advertisement.encode(),
                                                  scanResponse: BraceletAdvertisement.scanResponse(localName: "Bracelet \(deviceModel.description.uppercased())"))
                } catch {
                    printError("bracelet simulate: \(error)")
                    throw ExitCode(2)
                }
                defer { peripheral.close() }
                printError("simulate: \(description) advertising on \(adapter) as \(peripheral.address) (public)")
                try server.serve(listener: peripheral)
            } else {
                let path = String(serve.dropFirst(5))
                let listener = try SeqPacketListener(unixPath: path)
                printError("simulate: \(description) serving on unix:\(path)")
                try server.serve(listener: listener)
            }
        } catch let error as LinkError {
            printError("bracelet simulate: \(error)")
            throw ExitCode(1)
        }
    }
}
