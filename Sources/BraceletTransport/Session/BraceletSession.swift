import BraceletProtocol
import Glibc

/// Syncs one bracelet (protocol-specs/bracelet-protocol.md §8): connect -> Device Information (V1
/// or V2) -> subscribe -> set time -> set plan -> for each file kind: size -> read in chunks of at
/// most 10 000 bytes, re-requesting lost ranges -> verify header, length and CRC-32 -> commit via the
/// ``TransferSink`` (one call per file) -> erase exactly the committed size -> ask the size again
/// until the kind's queue is empty, so a long absence's backlog of several files per kind arrives in
/// one session, oldest first. A link drop reconnects with exponential backoff and resumes at the
/// file and byte it reached (files already erased are gone from the queue); nothing is erased before
/// its commit returned. When every kind is transferred, the sink's ``TransferSink/syncEnded()`` runs
/// the work it deferred (a store's summaries). The sink's calls run on the session's writer thread
/// while this thread keeps serving the link (see ``SessionWriter``); one file is handed over at a
/// time, and the session waits for its commit before erasing it and reading the next.
public final class BraceletSession {
    /// What a finished session did.
    public struct Report: Sendable {
        /// Files committed, in order.
        public var committed: [(kind: FileKind, size: Int)] = []
        /// Files erased on the bracelet.
        public var erasedFiles = 0
        /// Connections made.
        public var connections = 0
        /// Payload bytes received (including re-reads).
        public var bytesReceived = 0
        /// Data packets lost (re-requested).
        public var packetsLost = 0
        /// Repeated packets ignored.
        public var packetsRepeated = 0
        /// Heart Rate notifications received (a bracelet's live samples).
        public var heartRateNotifications = 0
        /// Measurements a standard sensor sent (``SessionEvent/sensorSample(_:)``).
        public var sensorSamples = 0
        /// The bracelet's model, once known.
        public var model: DeviceModel?
        /// The serial number; for a standard sensor without one, how it was reached (its address).
        public var serial: String?
        /// Whether every file kind was transferred to the end (no stop request cut it short); also
        /// true for a standard sensor once subscribed, which holds nothing to transfer.
        public var syncCompleted = false
        /// What the device said about itself when it is a standard health sensor, not a bracelet.
        public var sensor: StandardSensorInfo?
    }

    let connector: BraceletConnector
    private let sink: TransferSink
    private let writer = SessionWriter()
    let configuration: SessionConfiguration
    let onEvent: (SessionEvent) -> Void
    private var partial: [FileKind: PartialTransfer] = [:]
    private var verificationFailures: [FileKind: Int] = [:]
    /// Kinds whose announced size cannot be right: skipped for the rest of the session.
    private var sizeMismatches: [AnnouncedSizeMismatch] = []
    var report = Report()

    /// A session that connects with `connector` and commits to `sink`.
    public init(connector: BraceletConnector, sink: TransferSink, configuration: SessionConfiguration = SessionConfiguration(),
                onEvent: @escaping (SessionEvent) -> Void = { _ in }) {
        self.connector = connector
        self.sink = sink
        self.configuration = configuration
        self.onEvent = onEvent
    }

    /// Runs the sync to the end (every kind transferred and erased) or until it cannot continue.
    public func run() throws(SessionError) -> Report {
        var failures = 0, attempts = 0
        var backoff = configuration.initialBackoff
        var lastProblem = ""
        while true {
            attempts += 1
            let progressBefore = progressMark
            do throws(SessionError) {
                try connectAndSync()
                // The other kinds were transferred; the one whose size cannot be right ends the run.
                if let mismatch = sizeMismatches.first { throw SessionError.sizeMismatch(mismatch) }
                return report
            } catch {
                guard error.isRecoverable else { throw error }
                lastProblem = error.description
                onEvent(.linkLost(error.description))
            }
            if configuration.shouldStop() { return report }
            let progressed = progressMark > progressBefore
            if progressed {
                failures = 0
                backoff = configuration.initialBackoff
            } else {
                failures += 1
            }
            if failures >= configuration.maximumReconnects { throw .gaveUp(attempts: attempts, lastProblem: lastProblem) }
            onEvent(.reconnecting(afterMilliseconds: backoff.milliseconds))
            // In slices, so that a stop request (SIGINT/SIGTERM) ends the wait within 100 ms.
            var waited = Duration.zero
            while waited < backoff, !configuration.shouldStop() { sleepFor(min(.milliseconds(100), backoff - waited)); waited += .milliseconds(100) }
            backoff = min(backoff * 2, configuration.maximumBackoff)
        }
    }

    /// Grows with every step forward: bytes and files for a bracelet, samples for a standard sensor
    /// (whose link may drop now and then over hours of listening without the session giving up).
    private var progressMark: Int {
        report.bytesReceived + report.committed.count + report.sensorSamples
    }

    // MARK: - One connection

    private struct Link {
        var bearer: ATTBearer
        var gatt: GATTClient
        var database: GATTDatabase
        var command: UInt16
        var response: UInt16
        var data: UInt16
        var heartRate: UInt16?
        var model: DeviceModel
        var serial: String
    }

    private func connectAndSync() throws(SessionError) {
        let socket: SeqPacketSocket
        do { socket = try connector.connect() } catch {
            // A failed pairing needs the user (passkey, pairing mode, unpair): retrying cannot help.
            if let pairing = error as? PairingError { throw .cannotConnect(pairing.description) }
            if let bt = error as? BluetoothError {
                switch bt {
                case .kernelLacksBluetooth, .noAdapter, .adapterDown, .permissionDenied, .invalidAddress:
                    throw .cannotConnect(bt.description)
                default: break
                }
            }
            throw .link("cannot connect to \(connector.label): \(error)")
        }
        report.connections += 1
        var bearerConfiguration = ATTBearer.Configuration()
        bearerConfiguration.requestTimeout = configuration.requestTimeout
        let bearer = ATTBearer(socket: socket, configuration: bearerConfiguration)
        bearer.tap = configuration.tap
        bearer.onDiagnostic = { [onEvent] in onEvent(.diagnostic($0.description)) }
        configuration.onLinkState?(true)
        defer {
            bearer.close()
            configuration.onLinkState?(false)
        }
        onEvent(.connected(attempt: report.connections))
        // A device that refuses a read or write for insufficient security gets the link raised
        // (when the connector may raise it) and the request once more.
        let connector = self.connector
        let raiser = LinkSecurityRaiser(current: LinkSecurity.current(of: socket.descriptor),
                                        raise: { level in try connector.raiseSecurity(of: socket, to: level) },
                                        onRaised: { [onEvent] refusal, security in onEvent(.securityRaised(after: refusal, link: security)) })
        let gatt = GATTClient(bearer: bearer, securityRaiser: raiser)
        try gattStep { () throws(GATTError) in _ = try gatt.exchangeMTU(247) }
        let database = try gattStep { () throws(GATTError) in try gatt.discoverAll() }
        let measurements = StandardSensorInfo.measurementCharacteristics(in: database)
        if !measurements.isEmpty {
            try listenToSensor(measurements, gatt: gatt, database: database)
            return
        }
        var link = try setUp(bearer, gatt: gatt, database: database)
        let kinds = configuration.kinds.filter { kind in !sizeMismatches.contains { $0.kind == kind } }
        try announceBacklog(kinds, link: &link)
        for kind in kinds {
            if configuration.shouldStop() { return }
            do { try transferAll(kind, link: &link) } catch {
                guard case .sizeMismatch(let mismatch) = error else { throw error }
                sizeMismatches.append(mismatch)
                onEvent(.sizeMismatch(mismatch))
            }
        }
        // A stop request makes a transfer return early: only a run no request cut short completed.
        if !configuration.shouldStop() {
            report.syncCompleted = true
            let sink = self.sink
            let (outcome, linkFailure) = serving(link) { try sink.syncEnded() }
            if case .failure(let error) = outcome { throw .sinkFinishFailed(reason: "\(error)") }
            if let linkFailure { throw linkFailure }
        }
        if configuration.liveDuration > .zero { try listenLive(link: link, for: configuration.liveDuration) }
    }

    func gattStep<T>(_ body: () throws(GATTError) -> T) throws(SessionError) -> T {
        do { return try body() } catch {
            throw linkOrSecurityError(error) ?? .link("GATT procedure failed: \(error)")
        }
    }

    /// What a failed GATT procedure means for the session whatever the procedure was: a dropped
    /// link (reconnect), or a refusal for insufficient security that no raise satisfied (reconnecting
    /// cannot help); `nil` for a failure the procedure's caller classifies.
    func linkOrSecurityError(_ error: GATTError) -> SessionError? {
        if error.isLinkFailure { return .link(error.description) }
        if case .securityNotRaised = error { return .cannotConnect("\(connector.label): \(error)") }
        if let refusal = error.securityRefusal {
            return .cannotConnect("\(connector.label): \(error). " + SecurityUpgrade.advice(after: refusal))
        }
        return nil
    }

    private func setUp(_ bearer: ATTBearer, gatt: GATTClient, database: GATTDatabase) throws(SessionError) -> Link {
        guard let modelNumber = database.characteristic(GATTNumbers.modelNumber) else {
            throw .missingCharacteristic("Device Information Model Number (0x2A24), nor a standard health measurement (Heart Rate 0x2A37, PLX 0x2A5F/0x2A5E, Temperature 0x2A1C) to listen to as a sensor,")
        }
        let modelText = String(decoding: try gattStep { () throws(GATTError) in try gatt.read(handle: modelNumber.valueHandle) }, as: UTF8.self)
        guard let model = GATTNumbers.model(fromModelNumber: modelText) else { throw .unsupportedDevice(modelText) }
        if let expected = configuration.expectedModel, expected != model { onEvent(.modelMismatch(expected: expected, reported: model)) }
        var serial = ""
        if let c = database.characteristic(GATTNumbers.serialNumber) {
            serial = String(decoding: try gattStep { () throws(GATTError) in try gatt.read(handle: c.valueHandle) }, as: UTF8.self)
                .filter { $0 != "\0" }
        }
        var firmware: String?
        if let c = database.characteristic(GATTNumbers.firmwareRevision) {
            firmware = String(decoding: try gattStep { () throws(GATTError) in try gatt.read(handle: c.valueHandle) }, as: UTF8.self)
        }
        report.model = model
        report.serial = serial
        onEvent(.device(model: model, serial: serial, firmware: firmware))
        guard let command = database.characteristic(GATTNumbers.commandCharacteristic, in: GATTNumbers.braceletService) else {
            throw .missingCharacteristic("bracelet Command")
        }
        guard let response = database.characteristic(GATTNumbers.responseCharacteristic, in: GATTNumbers.braceletService) else {
            throw .missingCharacteristic("bracelet Response")
        }
        guard let data = database.characteristic(GATTNumbers.dataCharacteristic, in: GATTNumbers.braceletService) else {
            throw .missingCharacteristic("bracelet Data stream")
        }
        // Both CCCDs before the first command (spec §3.1): responses arrive as notifications.
        for c in [response, data] {
            do { try gatt.enableNotifications(c) } catch {
                throw linkOrSecurityError(error) ?? .missingCharacteristic("\(c.uuid) notifications (\(error))")
            }
        }
        var heartRate: UInt16?
        if configuration.liveHeartRate, let hr = database.characteristic(GATTNumbers.heartRateMeasurement) {
            try gattStep { () throws(GATTError) in try gatt.enableNotifications(hr) }
            heartRate = hr.valueHandle
        }
        var link = Link(bearer: bearer, gatt: gatt, database: database, command: command.valueHandle, response: response.valueHandle,
                        data: data.valueHandle, heartRate: heartRate, model: model, serial: serial)
        if configuration.readDeviceState { try readDeviceState(&link) }
        try setTimeAndPlan(&link)
        return link
    }

    private func setTimeAndPlan(_ link: inout Link) throws(SessionError) {
        let now = configuration.now()
        let setTime = Command.setTime(unixSeconds: UInt32(clamping: now), timeZoneOffsetMinutes: Int16(clamping: configuration.timeZoneOffsetMinutes))
        try expectSuccess(try command(setTime, link: &link), of: setTime)
        let plan = Command.setPlan(configuration.plan)
        try expectSuccess(try command(plan, link: &link), of: plan)
    }

    /// Reads the bracelet's own clock (Current Time, before set time corrects it) and its status
    /// (battery, wearing) and reports them as ``SessionEvent/deviceState(_:)``. A bracelet without
    /// Current Time, or one that refuses the status command, reports what it has.
    private func readDeviceState(_ link: inout Link) throws(SessionError) {
        var state = DeviceState()
        if let c = link.database.characteristic(GATTNumbers.currentTime) {
            let gatt = link.gatt
            state.currentTime = try gattStep { () throws(GATTError) in try gatt.read(handle: c.valueHandle) }
        }
        if case .status(let status) = try command(.status, link: &link) {
            state.batteryPercent = Int(status.batteryPercent)
            state.wearing = Int(status.wearing)
            state.isCharging = status.isCharging
        }
        onEvent(.deviceState(state))
    }

    private func expectSuccess(_ response: Response, of command: Command) throws(SessionError) {
        if case let .error(code, error, detail) = response { throw .deviceError(command: code, code: error, detail: detail) }
    }

    // MARK: - Commands

    /// Data packets that arrived while waiting for a response.
    private var stashedPackets: [[UInt8]] = []

    /// Writes a command and waits for its response, handling the transient errors (bad CRC: resend
    /// up to 3 times; busy: wait 200 ms, up to 10 times) and one resend on timeout (not for erase).
    private func command(_ command: Command, link: inout Link) throws(SessionError) -> Response {
        var badCRC = 0, busy = 0, timeouts = 0
        let frame = command.encode()
        while true {
            stashedPackets.removeAll()
            do {
                _ = try link.bearer.request(.writeRequest(handle: link.command, value: frame), timeout: configuration.requestTimeout)
            } catch {
                if case let .attError(_, _, code) = error { throw .link("the bracelet rejected the command write: \(code)") }
                throw .link(error.description)
            }
            if let response = try awaitResponse(link: &link) {
                if case let .error(_, code, _) = response {
                    if code == .badCRC, badCRC < 3 { badCRC += 1; continue }
                    if code == .busy, busy < 10 { busy += 1; sleepFor(.milliseconds(200)); continue }
                }
                return response
            }
            timeouts += 1
            if case .eraseFile = command { throw .commandTimedOut(command: frame[0]) }
            if timeouts > 1 { throw .commandTimedOut(command: frame[0]) }
        }
    }

    /// The next valid response frame within the command timeout; `nil` on timeout (a response with a
    /// bad CRC-8 counts as none, spec §5.1).
    private func awaitResponse(link: inout Link) throws(SessionError) -> Response? {
        let deadline = ContinuousClock.now + configuration.commandTimeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            guard let n = try nextNotification(link: link, timeout: remaining) else { return nil }
            if n.handle == link.response {
                if let response = try? Response(frame: n.value) { return response }
                onEvent(.diagnostic("discarded a response frame that failed to decode: \(n.value.count) bytes"))
            } else if n.handle == link.data {
                stashedPackets.append(n.value)
            }
        }
    }

    /// The next notification on the bracelet's own characteristics; Heart Rate and unknown handles
    /// are reported on the way.
    private func nextNotification(link: Link, timeout: Duration) throws(SessionError) -> ATTValueNotification? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            let n: ATTValueNotification?
            do { n = try link.bearer.nextNotification(timeout: remaining) } catch { throw .link(error.description) }
            guard let n else { return nil }
            if n.handle == link.response || n.handle == link.data { return n }
            if n.handle == link.heartRate {
                if let m = try? HeartRateMeasurement(value: n.value) {
                    report.heartRateNotifications += 1
                    onEvent(.heartRate(m))
                }
                continue
            }
            if !link.database.isKnownValueHandle(n.handle) { onEvent(.unknownHandle(n.handle)) }
        }
    }

    /// How long one wait for notifications lasts while the writer works: the longest the session
    /// notices a finished commit late.
    static let writerPollInterval = Duration.milliseconds(2)

    /// Runs `work` on the writer and serves the link until it finished: notifications arriving
    /// meanwhile are read (Heart Rate reported; data packets dropped, no read being outstanding)
    /// instead of waiting unread in the socket. A link that fails meanwhile is returned beside the
    /// work's outcome, which is awaited first: whether a file was committed must be known before
    /// reconnecting.
    private func serving(_ link: Link, _ work: @escaping @Sendable () throws -> Void) -> (Result<Void, any Error>, SessionError?) {
        let item = writer.start(work)
        while true {
            if let result = item.result { return (result, nil) }
            do { _ = try nextNotification(link: link, timeout: Self.writerPollInterval) } catch { return (item.wait(), error) }
        }
    }

    private func listenLive(link: Link, for duration: Duration) throws(SessionError) {
        let deadline = ContinuousClock.now + duration
        while !configuration.shouldStop() {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return }
            _ = try nextNotification(link: link, timeout: min(remaining, .milliseconds(250)))
        }
    }

    // MARK: - Transfers

    private enum ReadOutcome { case done, restartKind }

    /// Asks the bracelet how many sealed files of each kind wait (spec §4, queue status) and reports
    /// it, so progress can cover the whole backlog. A bracelet without the command answers
    /// `unknown_command`: the backlog is then learnt one file at a time.
    private func announceBacklog(_ kinds: [FileKind], link: inout Link) throws(SessionError) {
        for kind in kinds {
            if case let .queueStatus(files, kibibytes) = try command(.queueStatus(kind), link: &link) {
                onEvent(.backlog(kind: kind, files: Int(files), bytes: Int(kibibytes) * 1024))
            }
        }
    }

    /// Throws when the header (once its 32 bytes arrived) implies another length than `state.size`:
    /// a wrapped or corrupted size that re-reading cannot fix.
    private func checkHeader(_ kind: FileKind, _ state: inout PartialTransfer) throws(SessionError) {
        guard !state.headerChecked, kind == .metrics || kind == .beats, state.contiguous >= FileHeader.length else { return }
        state.headerChecked = true
        // A header that does not parse is left to verification, which names the field.
        guard let header = state.bytes.withUnsafeBytes({ try? FileHeader(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<FileHeader.length])) })
        else { return }
        do { try header.check(announcedSize: state.size) } catch { throw .sizeMismatch(error) }
    }

    private func transferAll(_ kind: FileKind, link: inout Link) throws(SessionError) {
        var restarts = 0
        while !configuration.shouldStop() {
            let sizeResponse = try command(.fileSize(kind), link: &link)
            let size: Int
            switch sizeResponse {
            case .fileSize(let s, _): size = Int(s)
            case let .error(code, .timeNotSet, _) where code == Command.Code.fileSize.rawValue:
                try setTimeAndPlan(&link)
                restarts += 1
                if restarts > 3 { throw .deviceError(command: code, code: .timeNotSet, detail: 0) }
                continue
            case let .error(code, error, detail):
                throw .deviceError(command: code, code: error, detail: detail)
            default:
                throw .link("unexpected answer \(sizeResponse) to a file size request")
            }
            if size == 0 { return }
            // Taken out of the dictionary while it grows, so that storing packets never copies the
            // buffer (copy-on-write); put back whenever the transfer stops before completing.
            var state = partial.removeValue(forKey: kind).flatMap { $0.size == size ? $0 : nil } ?? PartialTransfer(size: size)
            onEvent(.transferStarted(kind: kind, size: size, resumeAt: state.contiguous))
            var stalled = 0
            var restart = false
            do throws(SessionError) {
                while let gap = state.firstGap(limit: Int(Command.maximumReadLength)), !configuration.shouldStop() {
                    let before = state.received
                    let outcome = try read(kind, gap: gap, into: &state, link: &link)
                    if outcome == .restartKind { restart = true; break }
                    try checkHeader(kind, &state)
                    if state.received != before { onEvent(.transferProgress(kind: kind, received: state.received, size: size)) }
                    if state.received == before {
                        stalled += 1
                        if stalled >= 5 { throw .noProgress(kind: kind, offset: gap.lowerBound) }
                    } else {
                        stalled = 0
                    }
                }
            } catch {
                // A size that cannot be right is not resumed: the file is asked for afresh next session.
                if case .sizeMismatch = error {} else { partial[kind] = state }
                throw error
            }
            // A stop request between reads keeps the partial file for a later resume, uncommitted and unerased.
            if configuration.shouldStop(), state.firstGap(limit: Int(Command.maximumReadLength)) != nil { partial[kind] = state; return }
            if restart { partial[kind] = state }
            if restart {
                restarts += 1
                if restarts > 5 { throw .noProgress(kind: kind, offset: state.contiguous) }
                continue
            }
            if let problem = verify(kind, state.bytes) {
                let failures = (verificationFailures[kind] ?? 0) + 1
                verificationFailures[kind] = failures
                onEvent(.verificationFailed(kind: kind, reason: problem))
                if failures >= 3 { throw .verificationFailed(kind: kind, attempts: failures, reason: problem) }
                continue
            }
            verificationFailures[kind] = nil
            let file = TransferredFile(kind: kind, bytes: state.bytes, serial: link.serial, model: link.model, receivedAt: configuration.now())
            let sink = self.sink
            let (outcome, linkFailure) = serving(link) { try sink.commit(file) }
            if case .failure(let error) = outcome { throw .sinkFailed(kind: kind, reason: "\(error)") }
            report.committed.append((kind, size))
            onEvent(.committed(kind: kind, size: size))
            // Committed but not erased: the next connection finds the file again and the sink skips it.
            if let linkFailure { throw linkFailure }
            // Only now may the bracelet drop the file.
            let erase = try command(.eraseFile(kind, size: UInt32(size)), link: &link)
            switch erase {
            case .erased:
                report.erasedFiles += 1
                onEvent(.erased(kind: kind, size: size))
            case let .error(_, code, detail):
                onEvent(.eraseRefused(kind: kind, reason: "\(code) (detail \(detail))"))
                if code == .storageFailure { throw .deviceError(command: Command.Code.eraseFile.rawValue, code: code, detail: detail) }
                // Ask for the size again; a repeated file is stored idempotently.
                restarts += 1
                if restarts > 5 { throw .deviceError(command: Command.Code.eraseFile.rawValue, code: code, detail: detail) }
            default:
                throw .link("unexpected answer \(erase) to an erase request")
            }
        }
    }

    /// Reads one range: sends read file, collects packets until the last one, the range is full, or
    /// a second of silence. Lost packets leave gaps that the caller re-requests.
    private func read(_ kind: FileKind, gap: Range<Int>, into state: inout PartialTransfer, link: inout Link) throws(SessionError) -> ReadOutcome {
        let response = try command(.readFile(kind, offset: UInt32(gap.lowerBound), length: UInt16(gap.count)), link: &link)
        switch response {
        case .readAccepted:
            break
        case .error(_, .offsetOutOfRange, _), .error(_, .fileNotActive, _), .error(_, .eraseSizeMismatch, _):
            return .restartKind
        case .error(_, .timeNotSet, _):
            try setTimeAndPlan(&link)
            return .restartKind
        case let .error(code, error, detail):
            throw .deviceError(command: code, code: error, detail: detail)
        default:
            throw .link("unexpected answer \(response) to a read request")
        }
        var expectedSequence: UInt16 = 0
        var expectedOffset = gap.lowerBound
        var lost = 0, repeated = 0
        var pending = stashedPackets
        stashedPackets.removeAll()
        var finished = false
        // A stop request ends the read at the next packet (a slow bracelet's read takes seconds, and
        // SIGTERM must end listen within 2): what arrived is kept for a resume, and is no loss.
        while !finished {
            if configuration.shouldStop() { return .done }
            let bytes: [UInt8]
            if !pending.isEmpty {
                bytes = pending.removeFirst()
            } else {
                guard let n = try nextNotification(link: link, timeout: configuration.packetSilence) else { break }
                guard n.handle == link.data else { continue }
                bytes = n.value
            }
            guard let packet = try? DataPacket(bytes: bytes) else { lost += 1; continue }
            report.bytesReceived += packet.payload.count
            let offset = Int(packet.offset)
            if !gap.contains(offset) {
                // A late repeat from an earlier read: its bytes are held; it must not end this read.
                repeated += 1
                continue
            }
            if offset < expectedOffset {
                repeated += 1
            } else {
                if offset > expectedOffset || packet.sequence != expectedSequence { lost += 1 }
                let (_, pastEnd) = state.store(packet.payload, at: offset)
                if pastEnd { onEvent(.fileLargerThanAnnounced(kind: kind, size: state.size, offset: offset + packet.payload.count)) }
                expectedOffset = offset + packet.payload.count
                expectedSequence = packet.sequence &+ 1
            }
            if packet.isLast || expectedOffset >= gap.upperBound { finished = true }
        }
        if expectedOffset < gap.upperBound && lost == 0 { lost = 1 }
        if lost > 0 { report.packetsLost += lost; onEvent(.packetsLost(kind: kind, count: lost)) }
        if repeated > 0 { report.packetsRepeated += repeated; onEvent(.packetsRepeated(kind: kind, count: repeated)) }
        return .done
    }

    /// `nil` when the file is whole: header valid, length as announced, CRC-32 matching. Logs are text
    /// without a header and are accepted as they are.
    private func verify(_ kind: FileKind, _ bytes: [UInt8]) -> String? {
        guard kind == .metrics || kind == .beats else { return nil }
        do {
            let file = try bytes.withUnsafeBytes { (raw) throws(FileFormatError) in try SealedFile(bytes: raw) }
            if let fault = file.faults.first { return fault.description }
            if file.header.kind != kind { return "the header says \(file.header.kind), expected \(kind)" }
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// Sleeps for `duration` (used for backoff and busy retries).
func sleepFor(_ duration: Duration) {
    let ms = duration.milliseconds
    guard ms > 0 else { return }
    var request = timespec(tv_sec: ms / 1_000, tv_nsec: (ms % 1_000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
