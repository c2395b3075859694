import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Synchronization

/// What happened on both sides of a served session, in the order it happened (the sink runs on the
/// test thread, the simulator on its own: a shared lock orders them).
final class LinkLog: Sendable {
    enum Entry: Sendable, Equatable {
        case commit(FileKind, [UInt8])
        case erase(FileKind, [UInt8])
        case dropped
    }
    private let entries = Mutex<[Entry]>([])
    func append(_ e: Entry) { entries.withLock { $0.append(e) } }
    var all: [Entry] { entries.withLock { $0 } }
    var commits: [(FileKind, [UInt8])] { all.compactMap { if case let .commit(k, b) = $0 { (k, b) } else { nil } } }
    var erases: [(FileKind, [UInt8])] { all.compactMap { if case let .erase(k, b) = $0 { (k, b) } else { nil } } }
}

/// A sink that records every commit in the shared log (a test peer standing in for the store).
struct LoggingSink: TransferSink {
    let log: LinkLog
    var failing = false
    struct Refused: Error {}
    func commit(_ file: TransferredFile) throws {
        if failing { throw Refused() }
        log.append(.commit(file.kind, file.bytes))
    }
}

/// A simulated bracelet served on a Unix socket in a background thread.
final class ServedBracelet: Sendable {

    let server: SimulatorServer
    let path: String
    let history: PhysiologyModel
    let now: Int64
    let log: LinkLog
    let maximumFileSize: Int

    init(model: DeviceModel = .v1, days: Int = 1, seed: UInt64 = 7, faults: [String] = [], log: LinkLog = LinkLog(),
         maximumFileSize: Int = Int(Response.maximumFileSize), profile: SimulatorProfile = .bracelet,
         measurementSecurity: LESecurityLevel? = nil, linkSecurity: @escaping @Sendable (Int32) -> LinkSecurity? = { LinkSecurity.current(of: $0) },
         onEvent: @escaping @Sendable (SimulatorEvent) -> Void = { _ in }) throws {
        self.maximumFileSize = maximumFileSize
        let end: Int64 = 1_780_000_000
        history = try PhysiologyModel.simulatedHistory(model: model, serial: model == .v1 ? "V1LINK01" : "V2LINK01",
                                                       days: days, seed: seed, endingAt: end)
        now = history.end + 300
        var f = FirmwareFaults()
        for text in faults { try f.add(text) }
        let windows = history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
        let firmware = SimulatedFirmware(history: history, beatWindows: windows, faults: f, maximumFileSize: maximumFileSize)
        let fixedNow = now
        self.log = log
        let gattServer = profile.standard.map { SimulatedGATTServer(sensor: $0, for: firmware, serial: $0.simulatedSerial) }
            ?? SimulatedGATTServer(firmware: firmware)
        let model = history
        let feeds = profile.standard.map { SensorFeeds.feeds(for: $0, server: gattServer, model: model) } ?? []
        server = SimulatorServer(server: gattServer, live: profile.standard == nil ? LiveHeartRateSource(model: history) : nil,
                                 clock: { fixedNow }, measurementSecurity: measurementSecurity, linkSecurity: linkSecurity, feeds: feeds,
                                 onEvent: { event in
                                     onEvent(event)
                                     switch event {
                                     case let .erased(kind, file): log.append(.erase(kind, file))
                                     case .droppedLink: log.append(.dropped)
                                     default: break
                                     }
                                 })
        path = NSTemporaryDirectory() + "bracelet-link-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let ready = DispatchSemaphore(value: 0)
        let server = self.server, path = self.path
        Thread.detachNewThread {
            guard let listener = try? SeqPacketListener(unixPath: path) else { ready.signal(); return }
            ready.signal()
            try? server.serve(listener: listener)
            listener.close()
        }
        ready.wait()
    }

    deinit { server.stop() }

    /// The offset the client sends with set time.
    var offsetMinutes: Int { history.utcOffsetSeconds(at: now) / 60 }

    /// A session configuration fit for tests: the simulator's fixed clock, short timeouts.
    func configuration() -> SessionConfiguration {
        var c = SessionConfiguration()
        let fixed = now
        c.now = { fixed }
        c.timeZoneOffsetMinutes = offsetMinutes
        c.initialBackoff = .milliseconds(20)
        c.maximumBackoff = .milliseconds(200)
        c.packetSilence = .milliseconds(300)
        c.commandTimeout = .seconds(2)
        c.requestTimeout = .seconds(5)
        return c
    }

    /// The files a fault-free bracelet with the same history holds, read straight from the
    /// firmware state machine (no socket, no client code): the ground truth.
    func groundTruth() -> [(FileKind, [UInt8])] {
        let windows = history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
        var firmware = SimulatedFirmware(history: history, beatWindows: windows, maximumFileSize: maximumFileSize)
        _ = firmware.handle(frame: Command.setTime(unixSeconds: UInt32(now), timeZoneOffsetMinutes: Int16(offsetMinutes)).encode(), now: now, mtu: 247)
        var files: [(FileKind, [UInt8])] = []
        for kind in [FileKind.metrics, .beats, .logs] {
            while true {
                guard case let .fileSize(size, _)? = firmware.handle(frame: Command.fileSize(kind).encode(), now: now, mtu: 247).response.flatMap({ try? Response(frame: $0) }),
                      size > 0, let file = firmware.queues[kind]?.first else { break }
                files.append((kind, file))
                _ = firmware.handle(frame: Command.eraseFile(kind, size: size).encode(), now: now, mtu: 247)
            }
        }
        return files
    }
}

/// Connects to a served simulator through a relay thread that slips junk in front of the
/// bracelet's frames: after the `after`-th frame from the bracelet it sends a notification for an
/// unknown handle, a malformed PDU and a frame larger than the MTU.
struct JunkInjectingConnector: BraceletConnector {
    let path: String
    var after: Int = 0
    /// Add 1 to the size of the first erase command of each connection (the bracelet must refuse it).
    var spoilFirstErase = false
    /// Announce metrics files 10 bytes shorter than they are (they can never verify).
    var shrinkMetricsSize = false
    /// Damage the CRC-8 of this (1-based) bracelet response frame of each connection.
    var corruptResponseNumber: Int?
    var label: String { "relay to unix:\(path)" }

    func connect() throws -> SeqPacketSocket {
        let (client, relayEnd) = try SeqPacketSocket.pairDescriptors()
        let after = self.after, path = self.path, spoilErase = spoilFirstErase, shrink = shrinkMetricsSize, corruptNumber = corruptResponseNumber
        Thread.detachNewThread {
            let down = SeqPacketSocket(adopting: relayEnd)
            // If the simulator is not there the client sees the link drop, as with a real radio.
            guard let up = try? SeqPacketSocket.connect(unixPath: path) else { down.close(); return }
            var fromBracelet = 0
            var eraseSpoiled = false, lastSizeRequestWasMetrics = false, responses = 0
            while true {
                var fds = [pollfd(fd: up.descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: down.descriptor, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 2, 5_000) <= 0 { break }
                do {
                    if fds[0].revents != 0 {
                        guard let f = try up.receive(capacity: 4_096, timeout: .zero) else { continue }
                        fromBracelet += 1
                        if fromBracelet == after {
                            try down.send([0x1B, 0x77, 0x07, 0x01])  // unknown handle 0x0777
                            try down.send([0x1B, 0x01])  // malformed: no whole handle
                            try down.send([0x1B, 0x10, 0x00] + [UInt8](repeating: 0, count: 600))  // > MTU 247
                        }
                        var bytes = f.bytes
                        // Notification of a file-size response for metrics: [1B h h][10 s0 s1 s2 used crc].
                        if shrink, bytes.count == 9, bytes[0] == 0x1B, bytes[3] == 0x10,
                           case let .fileSize(size, used)? = try? Response(frame: Array(bytes[3...])), size > 10,
                           lastSizeRequestWasMetrics {
                            bytes = Array(bytes[0..<3]) + Response.fileSize(size: size - 10, storageUsedPercent: used).encode()
                        }
                        if bytes.count == 9, bytes[0] == 0x1B, (try? Response(frame: Array(bytes[3...]))) != nil {
                            responses += 1
                            if responses == corruptNumber { bytes[8] ^= 0xFF }
                        }
                        try down.send(bytes)
                    }
                    if fds[1].revents != 0 {
                        guard let f = try down.receive(capacity: 4_096, timeout: .zero) else { continue }
                        var bytes = f.bytes
                        if bytes.count == 10, bytes[0] == 0x12, case let .eraseFile(kind, size)? = try? Command(frame: Array(bytes[3...])),
                           spoilErase, !eraseSpoiled {
                            eraseSpoiled = true
                            bytes = Array(bytes[0..<3]) + Command.eraseFile(kind, size: size + 1).encode()
                        }
                        if bytes.count == 6, bytes[0] == 0x12, case let .fileSize(kind)? = try? Command(frame: Array(bytes[3...])) {
                            lastSizeRequestWasMetrics = kind == .metrics
                        }
                        try up.send(bytes)
                    }
                } catch { break }
            }
            up.close()
            down.close()
        }
        return SeqPacketSocket(adopting: client)
    }
}
