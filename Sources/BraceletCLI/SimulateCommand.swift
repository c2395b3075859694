import ArgumentParser
import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Synchronization

/// Set by SIGINT/SIGTERM: the simulator stops advertising and exits.
private let simulateInterrupted = Atomic<Bool>(false)

/// `bracelet simulate`: serve a simulated bracelet on a Unix socket or as an LE peripheral.
struct SimulateCommand: ParsableCommand, LoggingCommand {
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

            --profile heart-rate serves a plain SIG heart-rate sensor instead (a chest strap: Heart Rate \
            0x180D with Heart Rate Measurement notifications carrying RR intervals and Body Sensor \
            Location chest, Device Information, Battery; no bracelet service, no files), advertising the \
            0x180D service UUID; listen listens to it like any strap. --profile pulse-oximeter serves a \
            SIG pulse oximeter (0x1822: a PLX Continuous Measurement notified once a second, a PLX \
            Spot-Check Measurement with its time stamp indicated every 30 s) and --profile thermometer \
            a SIG thermometer (0x1809: a Temperature Measurement, core temperature at the tympanum with \
            its time stamp, indicated every 5 s). Each sensor's values come from the same physiological \
            model (--seed, --days; a V2 person, whose SpO2 and core temperature it has), and off the \
            body it sends what such sensors send (no skin contact, NaN). A sensor's Device Information \
            carries --serial (default HRSIM001, PLXSIM01, HTSIM001), or no Serial Number with \
            --without-serial (it is then known by its address); --model and --fault do not apply. \
            --measurement-security encrypted (or authenticated) makes it a sensor that lets only an \
            encrypted (authenticated) link subscribe to its measurements: on a weaker link the CCCD write \
            is answered with 0x0F Insufficient Encryption (0x05 Insufficient Authentication), as such straps \
            do; over hci: it then pairs Just Works (passkey entry with --passkey) when asked; over unix: \
            it always refuses, since a Unix socket cannot be encrypted.

            Faults (repeatable): drop-link-at:BYTES, lose-packet:N, repeat-packet:N, corrupt-crc:N, \
            slow:MS, reboot-at:BYTES, clock-reset. Packet numbers count data packets from 0.

            It says what it serves when it starts and, when it stops, what the bracelet handed over \
            and erased; --verbose adds the command log (each connection, command frame, erased file \
            and refused request: thousands of lines for a long history), --quiet leaves only errors.
            """
    )

    @Option(help: "Bracelet model.")
    var model: SimulatedModel = .v2

    @Option(help: "What to simulate: the bracelet, or a standard sensor (heart-rate strap, pulse oximeter, thermometer).")
    var profile: SimulatorProfile = .bracelet

    @Flag(help: "A standard sensor without a Device Information Serial Number (known by its address).")
    var withoutSerial = false

    @Option(help: "A standard sensor: the link its measurement subscription needs (none, encrypted, authenticated).")
    var measurementSecurity: StrapSecurity = .none

    @Option(help: "Where to serve: unix:PATH or hci:hciN.")
    var serve: String

    @Option(help: "Days of recorded history (1...400).")
    var days: Int = 7

    @Option(help: "Seed of the physiological model.")
    var seed: UInt64 = PhysiologyScenario.defaultSeed

    @Option(help: "Serial number (1-8 printable ASCII characters).")
    var serial: String?

    @Option(help: "Battery level at the start of the history, percent (1-100; default 46).")
    var batteryStart: Double?

    @Option(help: "The wearer charges the bracelet at the morning shower when it is below this percent (0: never; default 45).")
    var chargeBelow: Double?

    @Option(name: .customLong("unworn-day"), help: "A whole local day the bracelet lies off the wrist, counted back from today (1: yesterday; repeatable).")
    var unwornDays: [Int] = []

    @Option(name: .customLong("fault"), help: "A fault to inject (repeatable).")
    var faults: [String] = []

    // Test-only: a lower file size cap makes a short history arrive as many sealed files.
    @Option(help: .hidden)
    var maxFileSize: Int = Int(Response.maximumFileSize)

    @OptionGroup(title: "Pairing (hci: only)") var security: SimulatorPairingOptions

    @OptionGroup(title: "A bracelet that lives on (unix: only)") var life: SimulatorLifeOptions

    @OptionGroup var log: LogOptions

    @Flag(help: "Log each connection, command frame, erased file and refused request (the command log).")
    var verbose = false

    /// `--quiet` or `--log-level error`: progress and notes are not written.
    var quiet: Bool { log.level < .info }

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose writes the command log, which --quiet (or --log-level \(log.level.rawValue)) leaves out: give one") }
    }

    func run() throws {
        let sensor = profile.standard
        let isSensor = sensor != nil
        // A sensor simulates a V2 person: the model then carries the SpO2 and core temperature it streams.
        let deviceModel = isSensor ? .v2 : model.deviceModel
        if isSensor, !faults.isEmpty { throw ValidationError("--fault applies to the bracelet's file transfer; a \(profile) sensor has none (drop --fault or --profile \(profile))") }
        if !isSensor, measurementSecurity != .none {
            throw ValidationError("--measurement-security applies to a standard sensor (--profile heart-rate, pulse-oximeter, thermometer); a bracelet's security follows --pairing")
        }
        if !isSensor, withoutSerial { throw ValidationError("--without-serial applies to a standard sensor; a bracelet always has a serial") }
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
            // A bracelet that lives on holds a model running --live-days past now: its firmware
            // seals what it recorded up to the (scaled) current time at each size request.
            let clock = life.clock
            let liveDays = self.life.liveDays
            guard unwornDays.allSatisfy({ (0..<days).contains($0) }) else {
                throw ValidationError("--unworn-day must be 0 (today) to \(days - 1) (within --days \(days))")
            }
            var battery = BatteryBehaviour.typical
            if let batteryStart { battery.initialPercent = batteryStart }
            if let chargeBelow { battery.chargeBelowPercent = chargeBelow }
            history = try PhysiologyModel.simulatedHistory(model: deviceModel, serial: serial ?? sensor?.simulatedSerial ?? (deviceModel == .v1 ? "V1SIM001" : "V2SIM001"),
                                                           days: days + life.liveDays, seed: seed,
                                                           endingAt: clock.nowSeconds() + Int64(life.liveDays) * 86_400,
                                                           battery: battery, unwornDays: Set(unwornDays.map { $0 + liveDays }))
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("cannot build the simulated history: \(error)")
        }
        let windows = history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
        let firmware = SimulatedFirmware(history: history, beatWindows: windows, faults: injected, maximumFileSize: maxFileSize)
        let quiet = self.quiet
        let gattServer = sensor.map { SimulatedGATTServer(sensor: $0, for: firmware, serial: withoutSerial ? nil : history.serial) }
            ?? SimulatedGATTServer(firmware: firmware)
        // A standard heart-rate sensor serves without pairing, as straps do; a bracelet requires what its pairing state says.
        let life = self.life, clock = life.clock
        let erased = ErasedRecords()
        // Said on exit: what the bracelet handed over and erased, for a soak to compare with the store.
        defer { Log.info("simulate: erased \(history.serial): \(erased.line)") }
        let verbose = self.verbose
        // A sensor's measurements are its feeds; a bracelet's live heart rate is the server's own.
        let feeds = sensor.map { SensorFeeds.feeds(for: $0, server: gattServer, model: history) } ?? []
        let server = SimulatorServer(server: gattServer, live: isSensor ? nil : LiveHeartRateSource(model: history), clock: { clock.nowSeconds() },
                                     requiredSecurity: isHCI && !isSensor ? security.pairing.requiredLevel : nil,
                                     measurementSecurity: measurementSecurity.requiredLevel,
                                     isAvailable: { !life.isAway(at: clock.nowSeconds()) }, feeds: feeds, onEvent: { event in
                                         if case let .erased(kind, file) = event { erased.count(kind, file) }
                                         guard verbose else { return }
                                         if case .heartRate = event { return }
                                         if case .sensorValue = event { return }
                                         Log.info("simulate: \(event)")
                                     })
        signal(SIGINT) { _ in simulateInterrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in simulateInterrupted.store(true, ordering: .relaxed) }
        Thread.detachNewThread {
            var reboots = life.reboots(until: clock.nowSeconds())
            var stepped = life.clockStepDue(at: clock.nowSeconds())
            while !simulateInterrupted.load(ordering: .relaxed) {
                usleep(50_000)
                if !stepped, life.clockStepDue(at: clock.nowSeconds()), let step = life.parsedClockStep {
                    stepped = true
                    server.stepClock(seconds: step.seconds)
                    Log.info("simulate: clock stepped by \(step.seconds) s")
                }
                let due = life.reboots(until: clock.nowSeconds())
                if due > reboots {
                    reboots = due
                    server.reboot()
                    Log.info("simulate: rebooted (clock lost, files kept)")
                }
            }
            server.stop()
        }
        let restricted = measurementSecurity == .none ? "" : ", measurements only on an \(measurementSecurity.rawValue) link"
        let description = sensor.map { "\($0) sensor \($0.simulatedName) " + (withoutSerial ? "without a serial" : "serial \(history.serial)")
            + " (seed \(seed))" + restricted } ?? "\(deviceModel) bracelet \(history.serial) with \(days) day(s) of history"
            + (faults.isEmpty ? "" : " with faults \(faults.joined(separator: ", "))")
        do {
            if isHCI {
                let adapter = String(serve.dropFirst(4))
                let advertisement = BraceletAdvertisement.simulated(model: deviceModel, serial: history.serial,
                                                                    pairingState: security.pairing.advertisedState)
                let peripheral: LEPeripheral
                do {
                    // A strap that requires a secured link pairs as such straps do when a client raises the link.
                    if let pairing = isSensor ? measurementSecurity.pairing : security.pairing {
                        _ = try security.startAgent(adapter: adapter, pairing: pairing, quiet: quiet, stopped: { server.isStopped })
                    }
                    peripheral = try sensor.map {
                        try LEPeripheral(adapter: adapter, advertisingData: HeartRateSensorAdvertisement.advertisingData(for: $0),
                                         scanResponse: HeartRateSensorAdvertisement.scanResponse(for: $0))
                    } ?? LEPeripheral(adapter: adapter, advertisingData: advertisement.encode(),
                                      scanResponse: BraceletAdvertisement.scanResponse(localName: "Bracelet \(deviceModel.description.uppercased())"))
                } catch {
                    Log.error("bracelet simulate: \(error)")
                    throw ExitCode(2)
                }
                defer { peripheral.close() }
                peripheral.onAdvertisingRestored = {
                    Log.info("simulate: another program (bluetoothd, when it starts managing \(adapter)) removed the advertisement; advertising again")
                }
                Log.info("simulate: \(description) advertising on \(adapter) as \(peripheral.address) (public)")
                try server.serve(listener: peripheral)
            } else {
                let path = String(serve.dropFirst(5))
                Log.info("simulate: \(description) serving on unix:\(path)")
                // Out of range: no socket at all, so a client's connect fails as it would over the air.
                while !server.isStopped {
                    if life.isAway(at: clock.nowSeconds()) { usleep(20_000); continue }
                    let listener = try SeqPacketListener(unixPath: path)
                    try server.serve(listener: listener)
                    listener.close()
                    if !server.isStopped { Log.info("simulate: out of range") }
                }
            }
        } catch let error as LinkError {
            Log.error("bracelet simulate: \(error)")
            throw ExitCode(1)
        }
    }
}

extension SimulatorProfile: ExpressibleByArgument {}

extension StrapSecurity: ExpressibleByArgument {}

/// `simulate --model`: the bracelet model to simulate.
enum SimulatedModel: String, ExpressibleByArgument, CaseIterable {
    /// Base model 287-1.
    case v1
    /// Model 287-2 with SpO2, core temperature and EDA.
    case v2

    /// The protocol's model.
    var deviceModel: DeviceModel { self == .v1 ? .v1 : .v2 }
}

/// Records in the files a simulated bracelet erased (a client committed them), per kind.
final class ErasedRecords: Sendable {
    private let counts = Mutex((files: 0, slots: 0, beats: 0))

    /// Counts the records of an erased file.
    func count(_ kind: FileKind, _ file: [UInt8]) {
        guard let sealed = try? file.withUnsafeBytes({ (raw) throws(FileFormatError) in try SealedFile(bytes: raw) }) else { return }
        counts.withLock { c in
            c.files += 1
            if kind == .metrics { c.slots += sealed.header.recordCount }
            if kind == .beats { c.beats += sealed.header.recordCount }
        }
    }

    /// `files=N slots=N beats=N`.
    var line: String { counts.withLock { "files=\($0.files) slots=\($0.slots) beats=\($0.beats)" } }
}
