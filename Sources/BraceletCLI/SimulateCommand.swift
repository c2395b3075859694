import ArgumentParser
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation

/// `bracelet simulate`: serve a simulated bracelet on a Unix socket.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve a simulated V1/V2 bracelet (GATT server) on a Unix SOCK_SEQPACKET socket.",
        discussion: """
            The socket carries the same ATT PDUs as a BlueZ L2CAP ATT channel, so `bracelet listen --via \
            unix:PATH` runs the real client stack against it. The bracelet holds --days of history from \
            the physiological model ending now, sends live Heart Rate notifications once a second while \
            subscribed, and keeps its files and faults across connections. Serves until Ctrl-C.

            Faults (repeatable): drop-link-at:BYTES, lose-packet:N, repeat-packet:N, corrupt-crc:N, \
            slow:MS, reboot-at:BYTES, clock-reset. Packet numbers count data packets from 0.
            """
    )

    @Option(help: "Bracelet model: v1 or v2.")
    var model: String = "v2"

    @Option(help: "Where to serve: unix:PATH.")
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

    @Flag(help: "Do not log commands and connections on standard error.")
    var quiet = false

    func run() throws {
        let deviceModel: DeviceModel
        switch model.lowercased() {
        case "v1": deviceModel = .v1
        case "v2": deviceModel = .v2
        default: throw ValidationError("--model must be v1 or v2, not '\(model)'")
        }
        guard serve.hasPrefix("unix:"), serve.count > 5 else {
            throw ValidationError("--serve must be unix:PATH (e.g. unix:/tmp/bracelet.sock), not '\(serve)'")
        }
        let path = String(serve.dropFirst(5))
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
                                     onEvent: { event in
                                         if quiet { return }
                                         if case .heartRate = event { return }
                                         printError("simulate: \(event)")
                                     })
        let listener: SeqPacketListener
        do { listener = try SeqPacketListener(unixPath: path) } catch {
            printError("bracelet simulate: \(error)")
            throw ExitCode(1)
        }
        printError("simulate: \(deviceModel) bracelet \(history.serial) with \(days) day(s) of history serving on unix:\(path)"
                   + (faults.isEmpty ? "" : " with faults \(faults.joined(separator: ", "))"))
        do { try server.serve(listener: listener) } catch {
            printError("bracelet simulate: \(error)")
            throw ExitCode(1)
        }
    }
}
