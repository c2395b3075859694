/// A value the server pushed: a notification, or an indication (which the bearer has already
/// confirmed).
public struct ATTValueNotification: Sendable, Hashable {
    /// The attribute handle.
    public var handle: UInt16
    /// The value.
    public var value: [UInt8]
    /// Whether it came as an indication.
    public var isIndication: Bool

    /// Creates a notification.
    public init(handle: UInt16, value: [UInt8], isIndication: Bool) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }
}

/// Which way a PDU travelled, for taps that record a session.
public enum ATTDirection: Sendable, Hashable {
    /// Client to server.
    case sent
    /// Server to client.
    case received
}

/// The client side of an ATT bearer over any SOCK_SEQPACKET socket (BlueZ L2CAP CID 4 or a Unix
/// socket): one request outstanding at a time, each with a timeout; notifications and indications
/// queued for the caller (indications confirmed at once); malformed or oversized frames reported
/// as diagnostics, never fatal.
///
/// Synchronous: ``request(_:timeout:)`` and ``nextNotification(timeout:)`` read the socket until
/// what they wait for arrives or their time is up; nothing waits without a deadline. Use from one
/// thread.
public final class ATTBearer {
    /// Timeouts and limits.
    public struct Configuration: Sendable {
        /// How long a request may wait for its response (ATT transaction timeout: 30 s).
        public var requestTimeout: Duration = .seconds(30)
        /// Notifications kept for ``nextNotification(timeout:)`` before the oldest are dropped.
        public var maximumQueuedNotifications = 65_536
        /// The MTU this client offers in an MTU exchange.
        public var preferredMTU = 247

        /// The defaults.
        public init() {}
    }

    /// The largest ATT MTU (Core spec).
    public static let maximumMTU = 517
    /// The LE default ATT MTU before an exchange.
    public static let defaultMTU = 23

    /// The socket.
    public let socket: SeqPacketSocket
    /// Settings.
    public var configuration: Configuration
    /// The ATT MTU in force (23 until an MTU exchange).
    public private(set) var mtu = ATTBearer.defaultMTU
    /// Sees every PDU sent and received, in order (e.g. to write a btsnoop capture).
    public var tap: ((ATTDirection, ATTPDU) -> Void)?
    /// Sees every diagnostic as it happens.
    public var onDiagnostic: ((ATTBearerDiagnostic) -> Void)?
    /// The most recent diagnostics (at most 100).
    public private(set) var diagnostics: [ATTBearerDiagnostic] = []
    /// Count of all diagnostics so far.
    public private(set) var diagnosticCount = 0

    private var queue: [ATTValueNotification] = []
    private var queueHead = 0
    private var closed = false

    /// A bearer on a connected socket.
    public init(socket: SeqPacketSocket, configuration: Configuration = Configuration()) {
        self.socket = socket
        self.configuration = configuration
    }

    /// Closes the link.
    public func close() {
        closed = true
        socket.close()
    }

    /// Sends a request and returns its response. Notifications arriving meanwhile are queued.
    /// An Error Response to this request throws ``ATTBearerError/attError(request:handle:code:)``.
    public func request(_ pdu: ATTPDU, timeout: Duration? = nil) throws(ATTBearerError) -> ATTPDU {
        guard let expected = Self.responseOpcode(for: pdu.opcode) else { throw .notARequest(pdu.opcode) }
        try transmit(pdu)
        let limit = timeout ?? configuration.requestTimeout
        let deadline = ContinuousClock.now + limit
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { throw .requestTimedOut(request: pdu.opcode, milliseconds: limit.milliseconds) }
            guard let incoming = try receiveOne(timeout: remaining) else { continue }
            switch incoming {
            case .response(let response, let raw):
                if response.opcode == expected {
                    if case .exchangeMTUResponse(let serverMTU) = response, case .exchangeMTURequest(let clientMTU) = pdu {
                        adoptMTU(server: Int(serverMTU), client: Int(clientMTU))
                    }
                    return response
                }
                if case let .errorResponse(op, handle, code) = response, op == pdu.opcode {
                    throw .attError(request: pdu.opcode, handle: handle, code: code)
                }
                _ = raw
                report(.unexpectedResponse(response.opcode))
            case .malformed(let opcode, let reason):
                if opcode == expected { throw .malformedResponse(request: pdu.opcode, reason: reason) }
            case .handled:
                break
            }
        }
    }

    /// Sends a PDU that gets no response: Write Command or Handle Value Confirmation.
    public func send(_ pdu: ATTPDU) throws(ATTBearerError) {
        guard pdu.opcode == .writeCommand || pdu.opcode == .handleValueConfirmation else { throw .notARequest(pdu.opcode) }
        try transmit(pdu)
    }

    /// The next queued notification or indication, waiting up to `timeout` for one; `nil` when none
    /// came in time.
    public func nextNotification(timeout: Duration) throws(ATTBearerError) -> ATTValueNotification? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if queueHead < queue.count {
                let n = queue[queueHead]
                queueHead += 1
                compactQueue()
                return n
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            _ = try receiveOne(timeout: remaining)
        }
    }

    /// Notifications waiting to be read.
    public var queuedNotifications: Int { queue.count - queueHead }

    // MARK: - Internals

    private enum Incoming {
        case response(ATTPDU, [UInt8])
        case malformed(ATTOpcode, String)
        case handled
    }

    private func transmit(_ pdu: ATTPDU) throws(ATTBearerError) {
        if closed { throw .linkClosed }
        tap?(.sent, pdu)
        do { try socket.send(pdu.encode()) } catch {
            if error == .closed { closed = true; throw .linkClosed }
            throw .socket(error)
        }
    }

    /// Reads at most one frame; dispatches notifications, indications and peer requests; returns
    /// responses to the caller. `nil` on timeout.
    private func receiveOne(timeout: Duration) throws(ATTBearerError) -> Incoming? {
        if closed { throw .linkClosed }
        let frame: ReceivedFrame?
        do { frame = try socket.receive(capacity: Self.maximumMTU + 1, timeout: timeout) } catch {
            if error == .closed { closed = true; throw .linkClosed }
            throw .socket(error)
        }
        guard let frame else { return nil }
        if frame.originalLength > mtu {
            report(.oversizedFrame(length: frame.originalLength, mtu: mtu))
            return .handled
        }
        let pdu: ATTPDU
        do { pdu = try ATTPDU.parse(frame.bytes) } catch {
            report(.malformedPDU(bytes: frame.bytes.count, reason: error.description))
            return .malformed(ATTOpcode(rawValue: frame.bytes.first ?? 0), error.description)
        }
        tap?(.received, pdu)
        switch pdu {
        case let .handleValueNotification(handle, value):
            enqueue(ATTValueNotification(handle: handle, value: value, isIndication: false))
            return .handled
        case let .handleValueIndication(handle, value):
            try transmit(.handleValueConfirmation)
            enqueue(ATTValueNotification(handle: handle, value: value, isIndication: true))
            return .handled
        case .exchangeMTURequest(let peerMTU):
            // A peripheral may start the exchange itself; answer with ours.
            report(.peerRequest(pdu.opcode))
            try transmit(.exchangeMTUResponse(serverRxMTU: UInt16(configuration.preferredMTU)))
            adoptMTU(server: Int(peerMTU), client: configuration.preferredMTU)
            return .handled
        default:
            let op = pdu.opcode
            if Self.responseOpcode(for: op) != nil, !op.isCommand {
                // A request from the server to us (we are a client without a database).
                report(.peerRequest(op))
                try transmit(.errorResponse(requestOpcode: op, handle: 0, code: .requestNotSupported))
                return .handled
            }
            if op.isCommand { report(.peerRequest(op)); return .handled }
            return .response(pdu, frame.bytes)
        }
    }

    private func enqueue(_ n: ATTValueNotification) {
        if queuedNotifications >= configuration.maximumQueuedNotifications {
            queueHead += 1
            report(.notificationQueueOverflow(dropped: 1))
            // Dropped notifications must leave memory too: a peer flooding while nothing reads the
            // queue would otherwise grow it without bound.
            compactQueue()
        }
        queue.append(n)
    }

    /// Frees the slots of notifications already read or dropped, once they are the larger part.
    private func compactQueue() {
        if queueHead > 4_096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Notifications held in memory, read or dropped ones not yet freed included.
    var storedNotifications: Int { queue.count }

    private func adoptMTU(server: Int, client: Int) {
        var used = min(server, client)
        if server < Self.defaultMTU || server > Self.maximumMTU {
            used = min(max(server, Self.defaultMTU), Self.maximumMTU, client)
            report(.mtuOutOfRange(proposed: server, used: used))
        }
        mtu = max(Self.defaultMTU, used)
    }

    private func report(_ diagnostic: ATTBearerDiagnostic) {
        diagnosticCount += 1
        if diagnostics.count >= 100 { diagnostics.removeFirst() }
        diagnostics.append(diagnostic)
        onDiagnostic?(diagnostic)
    }

    /// The response opcode a request expects; `nil` for PDUs that are not requests.
    static func responseOpcode(for request: ATTOpcode) -> ATTOpcode? {
        switch request.rawValue {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20:
            ATTOpcode(rawValue: request.rawValue + 1)
        default: nil
        }
    }
}
