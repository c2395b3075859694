import BraceletProtocol
import BraceletTransport
import Synchronization
import Glibc

/// Serves a ``SimulatedGATTServer`` over sequenced-packet links (one ATT PDU per frame): Unix
/// SOCK_SEQPACKET connections or LE ATT channels of a kernel adapter (``LEPeripheral``), one client at a time, keeping the bracelet's state
/// (files, clock, faults) across connections. Sends live Heart Rate notifications once a second
/// while the client is subscribed, honours `slow:MS` before every notification, and closes the
/// connection when a fault drops the link.
///
/// Thread-safe: ``serve(listener:)`` or ``serve(connection:)`` run on one thread; ``stop()`` and the
/// state accessors may be called from any other.
public final class SimulatorServer: Sendable {
    private struct State: Sendable {
        var server: SimulatedGATTServer
        var live: LiveHeartRateSource?
        var connections = 0
        var stopped = false
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Int64
    private let onEvent: @Sendable (SimulatorEvent) -> Void
    private let requiredSecurity: LESecurityLevel?
    private let measurementSecurity: LESecurityLevel?
    private let linkSecurity: @Sendable (Int32) -> LinkSecurity?
    private let isAvailable: @Sendable () -> Bool
    private let feeds: [LiveFeed]

    /// A server for `server`. `live` enables Heart Rate notifications; `clock` gives the current
    /// Unix time (the firmware seals files up to it); `onEvent` sees what happens, from the serving thread.
    /// `requiredSecurity` is the link level protected writes need (protocol-specs §11), read from
    /// each Bluetooth link; `nil` requires none.
    /// `measurementSecurity` is the level a heart-rate sensor's measurement CCCD needs
    /// (``SimulatedGATTServer/measurementRefusal(for:link:required:)``); `nil` requires none.
    /// `linkSecurity` reads a connection's security (the kernel's BT_SECURITY by default; a Unix
    /// socket has none, so a test stands in for the kernel there).
    /// `isAvailable` false means out of range: ``serve(listener:)`` returns and a connection drops.
    /// `feeds` are the values a standard sensor pushes on its own (``SensorFeeds``).
    public init(server: SimulatedGATTServer, live: LiveHeartRateSource?, clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) },
                requiredSecurity: LESecurityLevel? = nil, measurementSecurity: LESecurityLevel? = nil,
                linkSecurity: @escaping @Sendable (Int32) -> LinkSecurity? = { LinkSecurity.current(of: $0) },
                isAvailable: @escaping @Sendable () -> Bool = { true }, feeds: [LiveFeed] = [],
                onEvent: @escaping @Sendable (SimulatorEvent) -> Void = { _ in }) {
        self.feeds = feeds
        self.requiredSecurity = requiredSecurity
        self.measurementSecurity = measurementSecurity
        self.linkSecurity = linkSecurity
        self.isAvailable = isAvailable
        state = Mutex(State(server: server, live: live))
        self.clock = clock
        self.onEvent = onEvent
    }

    /// Asks the serving loops to stop (within about 100 ms).
    public func stop() { state.withLock { $0.stopped = true } }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// A copy of the simulated bracelet as it is now (firmware queues, erased bytes, subscriptions).
    public var snapshot: SimulatedGATTServer { state.withLock { $0.server } }

    /// Restarts the bracelet: the link drops at the next frame, its clock is lost (the client must
    /// set it again), its files are kept.
    public func reboot() { state.withLock { $0.server.firmware.reboot() } }

    /// Makes the bracelet's clock read `seconds` off (Current Time) until a client sets it again.
    public func stepClock(seconds: Int) { state.withLock { $0.server.firmware.clockErrorSeconds += Int64(seconds) } }

    /// Accepts clients one after another until ``stop()``, or until the bracelet goes out of range
    /// (`isAvailable` false).
    public func serve(listener: some SeqPacketAcceptor) throws(LinkError) {
        while !isStopped, isAvailable() {
            guard let fd = try listener.accept(timeout: .milliseconds(100)) else { continue }
            serve(connection: SeqPacketSocket(adopting: fd))
        }
    }

    /// Serves one connected client until it disconnects, a fault drops the link, or ``stop()``.
    public func serve(connection socket: SeqPacketSocket) {
        let number = state.withLock { s in s.connections += 1; return s.connections }
        onEvent(.connected(number))
        var nextBeat = ContinuousClock.now + .seconds(1)
        var tick = 0
        defer {
            socket.close()
            state.withLock { $0.server.linkDown() }
        }
        while !isStopped {
            if !isAvailable() {
                onEvent(.droppedLink(number))
                return
            }
            let wait = min(ContinuousClock.now.duration(to: nextBeat), .milliseconds(100))
            let frame: ReceivedFrame?
            do { frame = try socket.receive(capacity: 1_024, timeout: max(.zero, wait)) } catch {
                onEvent(.disconnected(number))
                return
            }
            if ContinuousClock.now >= nextBeat {
                // One notification per second; after a long stall (sealing a big file) do not burst.
                nextBeat = max(nextBeat + .seconds(1), ContinuousClock.now + .milliseconds(500))
                tick += 1
                if !sendHeartRate(on: socket) || !sendFeeds(tick: tick, on: socket) { onEvent(.disconnected(number)); return }
            }
            guard let frame else { continue }
            let pdu: ATTPDU
            do { pdu = try ATTPDU.parse(frame.bytes) } catch {
                // A server answers what it cannot parse with Invalid PDU.
                let reply = ATTPDU.errorResponse(requestOpcode: ATTOpcode(rawValue: frame.bytes.first ?? 0), handle: 0, code: .invalidPDU)
                if (try? socket.send(reply.encode())) == nil { onEvent(.disconnected(number)); return }
                continue
            }
            let link = requiredSecurity == nil && measurementSecurity == nil ? nil : linkSecurity(socket.descriptor)
            let measurementSecurity = self.measurementSecurity, requiredSecurity = self.requiredSecurity
            if let refusal = state.withLock({
                $0.server.securityRefusal(for: pdu, link: link, required: requiredSecurity)
                    ?? $0.server.measurementRefusal(for: pdu, link: link, required: measurementSecurity)
            }) {
                onEvent(.refused(pdu.opcode, link: link))
                if refusal.contains(where: { (try? socket.send($0.encode())) == nil }) { onEvent(.disconnected(number)); return }
                continue
            }
            let (output, erased, slow, isCommand) = state.withLock { s -> (SimulatedGATTServer.Output, (FileKind, [UInt8])?, Int?, Bool) in
                var pending: (FileKind, [UInt8])?
                var isCommand = false
                if case let .writeRequest(handle, value) = pdu, handle == s.server.handles.command {
                    isCommand = true
                    if case let .eraseFile(kind, _)? = try? Command(frame: value), let file = s.server.firmware.queues[kind]?.first {
                        pending = (kind, file)
                    }
                }
                let before = pending.map { s.server.firmware.erasedBytes[$0.0] ?? 0 }
                let output = s.server.receive(pdu, now: clock())
                var erased: (FileKind, [UInt8])?
                if let pending, let before, (s.server.firmware.erasedBytes[pending.0] ?? 0) > before { erased = pending }
                return (output, erased, s.server.firmware.faults.slowMilliseconds, isCommand)
            }
            if isCommand, case let .writeRequest(_, value) = pdu { onEvent(.command(value)) }
            if let erased { onEvent(.erased(kind: erased.0, file: erased.1)) }
            for reply in output.pdus {
                if let slow, slow > 0, reply.opcode == .handleValueNotification || reply.opcode == .handleValueIndication {
                    sleepMilliseconds(slow)
                }
                if (try? socket.send(reply.encode())) == nil { onEvent(.disconnected(number)); return }
            }
            if output.dropsLink {
                onEvent(.droppedLink(number))
                return
            }
        }
    }

    /// Sends one live Heart Rate notification when the client subscribed and the model has beats;
    /// false when the link failed.
    private func sendHeartRate(on socket: SeqPacketSocket) -> Bool {
        let now = clock()
        let (measurement, handle, slow) = state.withLock { s -> (HeartRateMeasurement?, UInt16, Int?) in
            guard s.live != nil, s.server.isSubscribed(s.server.handles.heartRate) else { return (nil, 0, nil) }
            let m = s.live?.measurement(endingAt: now)
            return (m, s.server.handles.heartRate, s.server.firmware.faults.slowMilliseconds)
        }
        guard let measurement else { return true }
        if let slow, slow > 0 { sleepMilliseconds(slow) }
        onEvent(.heartRate(measurement))
        return (try? socket.send(ATTPDU.handleValueNotification(handle: handle, value: measurement.encode()).encode())) != nil
    }
}

extension SimulatorServer {
    /// Sends the values of the feeds due at `tick` (seconds since the connection) whose
    /// characteristic the client subscribed to; false when the link failed.
    private func sendFeeds(tick: Int, on socket: SeqPacketSocket) -> Bool {
        guard !feeds.isEmpty else { return true }
        let now = clock()
        for feed in feeds where tick % feed.everySeconds == 0 {
            guard state.withLock({ $0.server.isSubscribed(feed.handle) }), let value = feed.value(now) else { continue }
            onEvent(.sensorValue(handle: feed.handle, value: value))
            let pdu: ATTPDU = feed.indicates ? .handleValueIndication(handle: feed.handle, value: value)
                : .handleValueNotification(handle: feed.handle, value: value)
            if (try? socket.send(pdu.encode())) == nil { return false }
        }
        return true
    }
}

func sleepMilliseconds(_ ms: Int) {
    var request = timespec(tv_sec: ms / 1_000, tv_nsec: (ms % 1_000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
