import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import BraceletSimulator
import BraceletTransport

/// Plays a client and a simulated bracelet against each other and records every ATT PDU into a
/// btsnoop capture, exactly as a sniffer next to a real gateway would see them.
///
/// The client follows protocol-specs/bracelet-protocol.md §8: MTU, discovery, Device Information,
/// subscriptions, set time, set plan, then for each file kind size -> reads of at most 10 000
/// bytes -> re-requests of lost ranges -> CRC check -> erase, and resumes after a link drop.
struct SessionRecorder {
    var server: SimulatedGATTServer
    var writer: ATTCaptureWriter
    /// Capture clock, Unix microseconds.
    var clock: Int64
    var linkUp = false
    var discovered = false
    /// Transfers in progress, kept across link drops so they resume.
    var partial: [FileKind: PartialFile] = [:]

    /// A file being received: its bytes and which of them arrived.
    struct PartialFile {
        var size: Int
        var bytes: [UInt8]
        var have: [Bool]
    }
    var log: [String] = []

    /// Time between two PDUs on the link (one connection event of 7.5 ms).
    static let connectionEvent: Int64 = 7_500

    init(server: SimulatedGATTServer, datalink: BtsnoopDatalink, maxACLPayload: Int, startMicros: Int64) {
        self.server = server
        writer = ATTCaptureWriter(datalink: datalink, maxACLPayload: maxACLPayload, reservingCapacity: 1 << 22)
        clock = startMicros
    }

    var now: Int64 { clock / 1_000_000 }

    /// Sends one PDU from the client; records the server's answers; returns them.
    @discardableResult
    mutating func send(_ pdu: ATTPDU) -> [ATTPDU] {
        guard linkUp else { return [] }
        writer.append(pdu, direction: .sent, unixMicros: clock)
        clock += Self.connectionEvent
        let output = server.receive(pdu, now: now)
        for answer in output.pdus {
            writer.append(answer, direction: .received, unixMicros: clock)
            clock += Self.connectionEvent
        }
        if output.dropsLink {
            writer.disconnect(reason: 0x08, unixMicros: clock)
            server.linkDown()
            linkUp = false
            log.append("link dropped at \(now)")
        }
        return output.pdus
    }

    mutating func connect(atMicros: Int64) {
        clock = max(clock, atMicros)
        writer.connect(unixMicros: clock)
        clock += 30_000
        linkUp = true
        send(.exchangeMTURequest(clientRxMTU: 247))
        if !discovered { discover() }
        for handle in [server.handles.response, server.handles.data, server.handles.heartRate] {
            if let cccd = server.handles.cccd[handle] { send(.writeRequest(handle: cccd, value: [0x01, 0x00])) }
        }
    }

    mutating func disconnect() {
        guard linkUp else { return }
        writer.disconnect(reason: 0x13, unixMicros: clock)
        server.linkDown()
        linkUp = false
        clock += 10_000
    }

    /// Primary services, characteristics and descriptors, as BlueZ's GATT client discovers them.
    mutating func discover() {
        var start: UInt16 = 1
        while start != 0, linkUp {
            guard case .readByGroupTypeResponse(let list)? = send(.readByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF, groupType: .uuid16(0x2800))).first,
                  let last = list.entries.last else { break }
            start = last.endGroupHandle == 0xFFFF ? 0 : last.endGroupHandle + 1
        }
        start = 1
        while start != 0, linkUp {
            guard case .readByTypeResponse(let list)? = send(.readByTypeRequest(startHandle: start, endHandle: 0xFFFF, attributeType: .uuid16(0x2803))).first,
                  let last = list.entries.last else { break }
            start = last.handle == 0xFFFF ? 0 : last.handle + 1
        }
        start = 1
        while start != 0, linkUp {
            guard case .findInformationResponse(let list)? = send(.findInformationRequest(startHandle: start, endHandle: 0xFFFF)).first,
                  let last = list.entries.last else { break }
            start = last.handle == 0xFFFF ? 0 : last.handle + 1
        }
        if let model = server.attributes.first(where: { $0.type == GATTNumbers.modelNumber }) {
            send(.readRequest(handle: model.handle))
        }
        discovered = true
    }

    /// Sends a command and returns the decoded response plus the data packets that followed it.
    mutating func command(_ command: Command) -> (response: Response?, packets: [[UInt8]]) {
        let answers = send(.writeRequest(handle: server.handles.command, value: command.encode()))
        var response: Response?
        var packets: [[UInt8]] = []
        for answer in answers {
            guard case let .handleValueNotification(handle, value) = answer else { continue }
            if handle == server.handles.response { response = try? Response(frame: value) }
            if handle == server.handles.data { packets.append(value) }
        }
        return (response, packets)
    }

    /// Set time and plan after a connection.
    mutating func setUp(offsetMinutes: Int) {
        _ = command(.setTime(unixSeconds: UInt32(now), timeZoneOffsetMinutes: Int16(offsetMinutes)))
        _ = command(.setPlan(.typical))
    }

    /// Streams live Heart Rate notifications (1 s apart) for the beats in `beats`.
    mutating func liveHeartRate(_ beats: [Beat], seconds: Int) {
        guard linkUp, server.isSubscribed(server.handles.heartRate), let first = beats.first else { return }
        let start = first.timeMs / 1000 + 1
        var index = 0
        for second in 0..<Int64(seconds) {
            let until = (start + second) * 1000
            var rr: [UInt16] = []
            var rrMs: [Int] = []
            while index < beats.count, beats[index].timeMs < until {
                if let r = beats[index].rrMs { rr.append(UInt16((Double(r) * 1.024).rounded())); rrMs.append(r) }
                index += 1
            }
            guard !rrMs.isEmpty else { continue }
            // Like a real sensor, report the rate of the beats in this second.
            let bpm = Int((60_000 * Double(rrMs.count) / Double(rrMs.reduce(0, +))).rounded())
            let value = HeartRateMeasurement(bpm: bpm, contactDetected: true, energyExpendedKJ: nil, rrIntervals1024: rr).encode()
            clock = max(clock, until * 1000)
            writer.append(.handleValueNotification(handle: server.handles.heartRate, value: value), direction: .received, unixMicros: clock)
        }
    }

    /// Transfers every file of `kind`: size, reads with re-requests, verify, erase. Returns the
    /// files completed. Stops (keeping progress) if the link drops.
    mutating func transferAll(_ kind: FileKind) -> [[UInt8]] {
        var done: [[UInt8]] = []
        while linkUp {
            guard case let .fileSize(size32, _)? = command(.fileSize(kind)).response else { return done }
            let size = Int(size32)
            if size == 0 { return done }
            var state = partial[kind].flatMap { $0.size == size ? $0 : nil }
                ?? PartialFile(size: size, bytes: [UInt8](repeating: 0, count: size), have: [Bool](repeating: false, count: size))
            var attempts = 0
            while linkUp, let missing = state.have.firstIndex(of: false) {
                attempts += 1
                if attempts > 1_000 { return done }
                // Ask only for the gap: up to the next byte already held (or the end).
                let gapEnd = state.have[missing...].firstIndex(of: true) ?? size
                let length = min(Int(Command.maximumReadLength), gapEnd - missing)
                let (response, packets) = command(.readFile(kind, offset: UInt32(missing), length: UInt16(length)))
                guard case .readAccepted? = response else { break }
                for bytes in packets {
                    guard let packet = try? DataPacket(bytes: bytes) else { log.append("corrupt packet ignored"); continue }
                    for (i, b) in packet.payload.enumerated() where Int(packet.offset) + i < size {
                        state.bytes[Int(packet.offset) + i] = b
                        state.have[Int(packet.offset) + i] = true
                    }
                }
                partial[kind] = state
            }
            guard linkUp else { return done }
            let verified = state.bytes.withUnsafeBytes { (try? SealedFile(bytes: $0))?.isVerified ?? false }
            guard verified else {
                log.append("\(kind) file failed verification; not erased")
                partial[kind] = nil
                return done
            }
            // A real client commits the decoded records here, then erases.
            partial[kind] = nil
            _ = command(.eraseFile(kind, size: UInt32(size)))
            done.append(state.bytes)
        }
        return done
    }

    /// One complete sync: connect, set up, transfer metrics and beats (reconnecting after drops).
    mutating func sync(atMicros: Int64, offsetMinutes: Int, liveBeats: [Beat] = [], liveSeconds: Int = 0) {
        connect(atMicros: atMicros)
        liveHeartRate(liveBeats, seconds: liveSeconds)
        var reconnects = 0
        while true {
            if linkUp { setUp(offsetMinutes: offsetMinutes) }
            _ = transferAll(.metrics)
            _ = transferAll(.beats)
            if linkUp || reconnects >= 5 { break }
            reconnects += 1
            // Back off, then reconnect and resume from the last received byte.
            connect(atMicros: clock + 30_000_000)
        }
        disconnect()
    }
}
