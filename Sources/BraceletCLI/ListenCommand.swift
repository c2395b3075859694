import ArgumentParser
import BraceletDecoder
import BraceletIngest
import BraceletSummaries
import BraceletCapture
import BraceletProtocol
import BraceletTransport
import BraceletVitality
import Foundation
import Synchronization

/// The signal (SIGINT or SIGTERM) that asked listen to stop, 0 while none did; the session stops at
/// the next safe point (never mid-commit).
private let listenSignal = Atomic<Int32>(0)

/// `bracelet listen`: sync a bracelet (or a simulated one) and print live samples.
struct ListenCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Connect to a bracelet, transfer and save its files, then print live heart rate.",
        discussion: """
            Connects over BlueZ (--device ADDR) or to a simulated bracelet (--via unix:PATH), reads \
            Device Information, sets time and plan, transfers every file (resuming after link drops), \
            saves each verified file, and only then erases it on the bracelet. Afterwards it prints live \
            Heart Rate samples until Ctrl-C (or exits with --exit-after-sync). Ctrl-C stops at the next \
            safe point: nothing committed is lost and nothing uncommitted is erased.

            Where each verified file goes: --db PATH stores it in the database (slots, beats, transfer \
            progress; the days it touches are recomputed once the sync ends, as `bracelet ingest` does); \
            --save-dir DIR instead writes it durably as DIR/SERIAL-KIND-SIZE-CRC.bin. With neither, no \
            file is transferred or erased and only live samples are printed. --record FILE writes a \
            btsnoop capture that `bracelet replay` and tshark read.

            Progress through the whole backlog (files, bytes, rate, time left) and the recompute goes \
            to standard error (--progress: a bar on a terminal, a line every few seconds otherwise); \
            with --format json the backlog's progress also goes to standard output as JSON Lines, next \
            to the live samples ("kind": backlog, file, progress, committed, erased, link_lost, \
            size_mismatch, event, hr).

            A device without the bracelet service but with a standard health service (Heart Rate 0x180D, \
            such as any chest strap; Pulse Oximeter 0x1822; Health Thermometer 0x1809) is listened to as \
            a standard sensor: listen reads its Device Information, Body Sensor Location and Battery \
            Level when it has them, subscribes to its measurements and prints each one (rate, RR \
            intervals, skin contact and energy expended when sent; SpO2 and pulse rate; temperature). \
            Such a sensor holds no files, so nothing is transferred or erased; with --db its values are \
            kept as the device's samples and beats under its Device Information serial (its address when \
            it has none), written every few seconds and summarised like a bracelet's day (`bracelet \
            summarize --db`), every 5 minutes and when listen ends. --save-dir keeps nothing of a sensor; \
            --record FILE keeps its traffic, which `bracelet replay` reads back.

            Live sample lines (--format jsonl/json) are the ones `bracelet replay` prints for a \
            capture's notifications: {"kind":"hr","t":UTC with ms,"bpm":N,"rr_ms":[...]}, with \
            "contact":false when the sensor reports lost skin contact and "energy_kj" when it sends \
            Energy Expended; an oximeter's {"kind":"spo2","t":...,"spo2":N,"pr":N} (a key left out for \
            a value it could not measure, "spot":true for a spot-check), a thermometer's \
            {"kind":"temp","t":...,"celsius":N} ("site" when it says where it measured).

            Exit status: 0 when the run finished: with --exit-after-sync, once every file was \
            transferred (a signal arriving after that changes nothing); 130 when SIGINT (Ctrl-C) and \
            143 when SIGTERM ended it before then (without --exit-after-sync only a signal ends the \
            live samples, so such a run ends with 130 or 143), everything committed staying \
            committed; 2 Bluetooth unusable (message says what to do); 1 other failures.
            """
    )

    @Option(help: "Bracelet address (AA:BB:CC:DD:EE:FF), connected over BlueZ L2CAP.")
    var device: String?

    @Option(help: "Address type of --device (default: what a short scan hears it advertise as).")
    var addressType: AddressTypeArgument?

    @Option(help: "Adapter for --device (default: any).")
    var adapter: String?

    @Option(help: "Connect to a simulated bracelet instead: unix:PATH (see bracelet simulate).")
    var via: String?

    @Option(help: "Store each verified file in this database (slots, beats, transfer progress); the touched days are recomputed once the sync ends.")
    var db: String?

    @Option(help: "Save each verified file in this directory.")
    var saveDir: String?

    @OptionGroup var person: PersonOptions

    @Option(help: "Record the session's ATT traffic as a btsnoop file.")
    var record: String?

    @Option(help: "Live sample format; json = jsonl plus transfer progress events as JSON Lines on standard output.")
    var format: ListenFormat = .jsonl

    @Option(help: "Measurement plan to set (0-10).")
    var plan: UInt8 = 2

    @OptionGroup(title: "Pairing and encryption (--device only)") var link: ListenSecurityOptions

    @Flag(help: "Exit once the transfer is done instead of printing live samples.")
    var exitAfterSync = false

    @OptionGroup var log: LogOptions

    @OptionGroup var progress: ProgressOptions

    /// `--quiet` or `--log-level error`: progress and notes are not written.
    var quiet: Bool { log.level < .info }

    func run() throws {
        // Installed first: SIGINT/SIGTERM must also end a scan or a pending connect at once.
        signal(SIGINT) { number in listenSignal.store(number, ordering: .relaxed) }
        signal(SIGTERM) { number in listenSignal.store(number, ordering: .relaxed) }
        let interrupted: @Sendable () -> Bool = { listenSignal.load(ordering: .relaxed) != 0 }
        // Links the connector secured, for the --record capture.
        let securedLinks = SecuredLinks()
        let connector: BraceletConnector
        if let via {
            guard via.hasPrefix("unix:"), via.count > 5 else { throw ValidationError("--via must be unix:PATH") }
            connector = UnixSocketConnector(path: String(via.dropFirst(5)))
        } else if let device {
            guard let address = BluetoothAddress(device) else { throw ValidationError(BluetoothError.invalidAddress(device).description) }
            do { try LEScanner.checkKernelSupport() } catch {
                Log.error("bracelet listen: \(error)")
                throw ExitCode(2)
            }
            // The link's security does not depend on how the device is named: with or without
            // --address-type it is learned from what the device answers (ListenSecurityOptions).
            let type = try addressType?.addressType ?? Self.advertisedType(address, adapter: adapter, quiet: quiet, shouldStop: interrupted)
            let plain = L2CAPConnector(address: address, addressType: type, adapter: adapter, shouldStop: interrupted)
            do {
                connector = try link.connector(base: plain, quiet: quiet, onSecured: securedHandler(noting: securedLinks))
            } catch {
                Log.error("bracelet listen: \(error)")
                throw ExitCode(2)
            }
        } else {
            // Without a device there is nothing to connect to; on a machine without Bluetooth say so first.
            do { try LEScanner.checkKernelSupport() } catch {
                Log.error("bracelet listen: \(error)")
                throw ExitCode(2)
            }
            throw ValidationError("give --device ADDR (find it with `bracelet scan`) or --via unix:PATH")
        }
        // Without a place to save files nothing is transferred (and so nothing is erased): live samples only.
        guard db == nil || saveDir == nil else { throw ValidationError("give --db PATH or --save-dir DIR, not both") }
        let reporter = progress.reporter("listen")
        defer { reporter.finish() }
        if let db { reporter.begin("opening \(db)") }
        let pipeline = try db.map { try ingestPipeline(database: $0, reporter: reporter) }
        let sink: TransferSink = try pipeline ?? saveDir.map { try DirectorySink(path: $0) } ?? RefusingSink()

        var configuration = SessionConfiguration()
        configuration.plan = MeasurementPlan(rawValue: plan)
        configuration.timeZoneOffsetMinutes = TimeZone.current.secondsFromGMT() / 60
        configuration.shouldStop = interrupted
        configuration.liveDuration = exitAfterSync ? .zero : .seconds(365 * 86_400)
        if saveDir == nil && db == nil {
            configuration.kinds = []
            if !quiet { Log.info("listen: no --db or --save-dir given: files stay on the bracelet; printing live samples only") }
        }
        // The capture says a link was encrypted after its connection when the connector secured it
        // while setting it up, and at the moment it was raised when the device asked for it later.
        let recorder = try record.map { path in try CaptureRecorder(path: path) }
        if let recorder {
            configuration.tap = { direction, pdu in recorder.append(pdu, direction: direction) }
            configuration.onLinkState = { up in up ? recorder.connect(encrypted: securedLinks.take()) : recorder.disconnect(clearing: securedLinks) }
        }
        let quiet = self.quiet, table = format == .table, storing = db ?? saveDir
        let events = TransferProgressOutput(style: format == .json ? .json : quiet ? .quiet : .human)
        defer {
            if let recorder {
                do { try recorder.finish() } catch { Log.error("bracelet listen: \(error)") }
            }
        }
        // The sync itself (commit before erase, erases recorded, touched days recomputed however the
        // session ends) is the library's, shared with the gateway; listen prints what happens.
        // With --exit-after-sync, a sync into a database without samples is one load (Store.loading):
        // its new pages are written once, not through the write-ahead log and again at its
        // checkpoints. A listen that goes on with live samples keeps the log: while a load runs,
        // no other process can open the file.
        let sync = { LiveSync.run(connector: connector, sink: sink, configuration: configuration, onEvent: { event in
            // A sensor's stream has no end to show progress towards: its samples are the signs of
            // life (the reporter would otherwise repeat "asking the bracelet" for as long as it streams).
            if case .standardSensor = event { reporter.finish() }
            if case .standardSensor(let info) = event, !quiet, let storing {
                Log.info(db == nil ? "listen: a standard sensor holds no files: nothing goes to \(storing); keep its values with --db PATH"
                    : "listen: the sensor's values are kept in \(storing) as device \(info.identity(address: connector.label))")
            }
            if case .securityRaised = event { recorder?.encryptionOn() }
            let live: (HeartRateMeasurement, Int64)? = switch event {
            case .heartRate(let m): (m, Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
            case .sensorSample(let s): if case .heartRate(let m) = s.measurement { (m, s.receivedAtMilliseconds) } else { nil }
            default: nil
            }
            if let (m, ms) = live {
                // A sample line on a terminal first clears the bar (the next tick draws it again).
                reporter.clearBar()
                let line = table ? Self.tableLine(m, unixMilliseconds: ms) : HeartRateSampleLine.string(m, unixMilliseconds: ms)
                // Unbuffered, so a pipe sees each sample as it arrives.
                FileHandle.standardOutput.write(Data(line.utf8))
            } else if case .sensorSample(let s) = event {
                reporter.clearBar()
                if let line = SensorSampleLine.string(s, table: table) { FileHandle.standardOutput.write(Data(line.utf8)) }
            } else {
                events.handle(event)
            }
        }, onProgress: { reporter.update($0) }) }
        let outcome = try exitAfterSync ? pipeline.map { try $0.store.loading(sync) } ?? sync() : sync()
        reporter.finish()
        for warning in outcome.eraseRecordErrors { Log.warning("warning: \(warning)") }
        if let failure = outcome.recomputeError, let pipeline {
            Log.error("bracelet listen: the stored files are kept, but recomputing their days failed: \(failure). "
                       + "They stay pending: the next `bracelet listen --db \(pipeline.store.path)` recomputes them.")
        }
        if let error = outcome.error {
            Log.error("bracelet listen: \(error)")
            if case .cannotConnect = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
        guard outcome.recomputeError == nil, let report = outcome.report else { throw ExitCode(1) }
        if !quiet {
            Log.info("listen: done: \(report.committed.count) file(s) committed, \(report.erasedFiles) erased, "
                       + "\(report.connections) connection(s), \(report.packetsLost) packet(s) re-requested")
        }
        if let status = Self.interruptedStatus(signal: listenSignal.load(ordering: .relaxed), exitAfterSync: exitAfterSync,
                                               syncCompleted: report.syncCompleted) {
            if !quiet { Log.info("listen: ended by \(status == 130 ? "SIGINT" : "SIGTERM") before the run finished; exit status \(status)") }
            throw ExitCode(status)
        }
    }
}

extension ListenCommand {
    /// The pipeline that stores each verified file of the session with its summaries and outbox
    /// entries as the file arrives (the session erases a file only after that commit).
    func ingestPipeline(database: String, reporter: ProgressReporter? = nil) throws -> IngestPipeline {
        let store = try openStore(database, mustExist: false)
        // Said before anything is transferred: the bracelet erases what the database committed.
        if person.age == nil && person.hrMax == nil {
            let records = try participantCall(database) { try store.devices().map { try ParticipantRecord.load(device: $0.serial, from: store) } }
            if !records.contains(where: { (try? $0.current()).map { $0.age != nil || $0.hrMax != nil } ?? false }) {
                Log.warning("warning: no --age or --hr-max given and no participant record in \(database) has one: a new bracelet's zones "
                           + "assume age \(SummaryConfiguration.defaultAge) and its vitality metrics are stored without movement minutes. "
                           + "Set them with `bracelet person set --db \(database) --device SERIAL --age N`.")
            }
        }
        if person.tz == nil {
            Log.info("note: no --tz given; a bracelet without a time zone in its participant record gets this machine's zone "
                       + "(\(SummaryConfiguration.name(of: .current))); set it with `bracelet person set --db \(database) --device SERIAL --tz ZONE`")
        }
        let quiet = self.quiet
        return IngestPipeline(store: store, given: person.given, defaultTimeZone: TimeZone.current, onIngested: { report in
            guard !quiet else { return }
            if report.recomputed.isEmpty {
                Log.info("listen: stored \(report.slotsInserted) new slots and \(report.beatsInserted) new beats")
            } else {
                let days = report.recomputed.reduce(0) { $0 + $1.report.dates.count }
                Log.info("listen: recomputed \(days) days, \(report.outboxEntries) outbox entries written")
            }
        }, onProgress: reporter.map(Self.forwarding))
    }

    /// A progress handler that hands the library's progress to `reporter`.
    private static func forwarding(_ reporter: ProgressReporter) -> @Sendable (WorkProgress) -> Void {
        { reporter.update($0) }
    }
}

extension ListenCommand {
    /// The exit status of a run a signal asked to stop: 128 + the signal's number (130 SIGINT, 143
    /// SIGTERM), the shell's convention, so a script can tell it from a finished run; `nil` when no
    /// signal came, or when it came after --exit-after-sync's sync had completed (the run finished).
    static func interruptedStatus(signal: Int32, exitAfterSync: Bool, syncCompleted: Bool) -> Int32? {
        guard signal != 0, !(exitAfterSync && syncCompleted) else { return nil }
        return 128 + signal
    }

    /// One live sample as a table row: time, rate, RR intervals, and contact or energy when sent.
    static func tableLine(_ m: HeartRateMeasurement, unixMilliseconds: Int64) -> String {
        var line = "\(UTCTime.iso8601(unixMilliseconds: unixMilliseconds))  \(m.bpm) bpm  rr \(m.rrMilliseconds.map(String.init).joined(separator: ",")) ms"
        if m.contactDetected == false { line += "  no skin contact" }
        if let energy = m.energyExpendedKJ { line += "  \(energy) kJ" }
        return line + "\n"
    }
}

/// `listen --format`: how live samples (and, for json, progress) are printed.
enum ListenFormat: String, ExpressibleByArgument, CaseIterable {
    /// One JSON object per live sample (the lines `bracelet replay` prints).
    case jsonl
    /// One aligned text row per live sample.
    case table
    /// jsonl, plus the transfer progress events as JSON Lines on standard output.
    case json
}

/// An LE address type on the command line: `public` or `random` (what `bracelet scan` prints).
enum AddressTypeArgument: String, ExpressibleByArgument, CaseIterable {
    /// A public (IEEE-assigned) address.
    case `public`
    /// A random (static or private) address.
    case random

    /// The transport's address type.
    var addressType: LEAddressType { self == .public ? .public : .random }
}

extension ListenCommand {
    /// How long listen scans for the device when --address-type is not given (it stops at the
    /// device's first advertisement).
    static let addressTypeScanSeconds = 10.0

    /// The address type `address` advertises with, from a scan on `adapter` that ends as soon as it
    /// is heard; exits with status 2 and says to give --address-type when the scan cannot run or does
    /// not hear the device.
    static func advertisedType(_ address: BluetoothAddress, adapter: String?, quiet: Bool,
                               shouldStop: @escaping @Sendable () -> Bool) throws -> LEAddressType {
        if !quiet { Log.info("listen: no --address-type given; scanning up to \(Int(addressTypeScanSeconds)) s for \(address)") }
        let heard: LEAddressType?
        do { heard = try LEScanner(adapter: adapter, shouldStop: shouldStop).addressType(of: address, seconds: addressTypeScanSeconds) } catch {
            Log.error("bracelet listen: cannot scan for \(address) to learn its address type: \(error) "
                       + "Or give --address-type public|random (what `bracelet scan` shows).")
            throw ExitCode(2)
        }
        if let status = interruptedStatus(signal: listenSignal.load(ordering: .relaxed), exitAfterSync: false, syncCompleted: false) {
            throw ExitCode(status)
        }
        guard let heard else {
            Log.error("bracelet listen: \(address) was not heard advertising in \(Int(addressTypeScanSeconds)) s. "
                       + "Check that it is near and advertising (`bracelet scan`), or give --address-type public|random.")
            throw ExitCode(2)
        }
        if !quiet { Log.info("listen: \(address) advertises with a \(heard) address") }
        return heard
    }
}

/// Writes each verified file durably into a directory (temporary file, fsync, rename).
struct DirectorySink: TransferSink {
    let path: String

    init(path: String) throws {
        self.path = path
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw CLIError("cannot create \(path): \(error.localizedDescription); check the path and permissions")
        }
    }

    func commit(_ file: TransferredFile) throws {
        // Named by content (size and the file's own trailing CRC-32): two files never share a name, and
        // the same file sent twice (link drop between commit and erase) lands on the same name.
        let tag = hexString(file.bytes.suffix(4))
        let name = "\(file.serial)-\(file.kind)-\(file.bytes.count)-\(tag).bin"
        let final = path + "/" + name, temporary = final + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let written = file.bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == file.bytes.count, synced == 0, rename(temporary, final) == 0 else {
            throw CLIError("cannot save \(final): \(String(cString: strerror(errno))); check free space")
        }
    }
}

/// Notes that the connector secured a link (``SecureConnector``'s `onSecured`, which runs before
/// the session sees the link), for the capture to say so once the session reports the connection.
final class SecuredLinks: Sendable {
    private let secured = Atomic<Bool>(false)
    /// A link was secured.
    func note() { secured.store(true, ordering: .relaxed) }
    /// Whether a link was secured since the last call.
    func take() -> Bool { secured.exchange(false, ordering: .relaxed) }
}

/// Stands in when there is nowhere to save: the session transfers no files then, and this sink
/// refuses any it is given, so the bracelet never erases them.
struct RefusingSink: TransferSink {
    func commit(_ file: TransferredFile) throws {
        throw CLIError("no --save-dir given: refusing the \(file.kind) file so the bracelet keeps it; pass --save-dir DIR")
    }
}
