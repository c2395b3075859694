import BraceletTransport
import Foundation
import Synchronization
import Testing

/// A scripted ATT server on the other end of a socketpair, running on its own thread.
final class ScriptedPeer: Sendable {
    let received = Mutex<[[UInt8]]>([])
    let done = DispatchSemaphore(value: 0)

    /// Starts `script` with the peer's socket; returns the client's descriptor.
    static func start(_ script: @escaping @Sendable (SeqPacketSocket, ScriptedPeer) -> Void) throws -> (ScriptedPeer, SeqPacketSocket) {
        let (a, b) = try SeqPacketSocket.pairDescriptors()
        let peer = ScriptedPeer()
        Thread.detachNewThread {
            let socket = SeqPacketSocket(adopting: b)
            script(socket, peer)
            peer.done.signal()
            // Keep the socket open until the client is done unless the script closed it.
            _ = try? socket.receive(timeout: .seconds(2))
        }
        return (peer, SeqPacketSocket(adopting: a))
    }

    /// Reads the next frame (up to 2 s) and records it.
    func next(_ socket: SeqPacketSocket) -> [UInt8]? {
        guard let frame = try? socket.receive(timeout: .seconds(2)) else { return nil }
        received.withLock { $0.append(frame.bytes) }
        return frame.bytes
    }
}

@Suite("ATT bearer")
struct ATTBearerTests {
    @Test func notificationsAndIndicationsArriveWhileARequestWaits() throws {
        let (peer, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)  // Exchange MTU Request
            try? s.send([0x1D, 0x20, 0x00, 0xAA])  // indication on 0x0020
            _ = peer.next(s)  // its confirmation
            try? s.send([0x1B, 0x21, 0x00, 0x01, 0x02])  // notification on 0x0021
            try? s.send([0x03, 0x64, 0x00])  // server MTU 100
        }
        let bearer = ATTBearer(socket: socket)
        let response = try bearer.request(.exchangeMTURequest(clientRxMTU: 247), timeout: .seconds(2))
        #expect(response == .exchangeMTUResponse(serverRxMTU: 100))
        #expect(bearer.mtu == 100)
        #expect(try bearer.nextNotification(timeout: .zero) == ATTValueNotification(handle: 0x20, value: [0xAA], isIndication: true))
        #expect(try bearer.nextNotification(timeout: .zero) == ATTValueNotification(handle: 0x21, value: [0x01, 0x02], isIndication: false))
        #expect(try bearer.nextNotification(timeout: .milliseconds(10)) == nil)
        peer.done.wait()
        #expect(peer.received.withLock { $0 } == [[0x02, 0xF7, 0x00], [0x1E]])
    }

    @Test func requestTimesOutInsteadOfHanging() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in _ = peer.next(s) }
        let bearer = ATTBearer(socket: socket)
        let started = ContinuousClock.now
        #expect(throws: ATTBearerError.requestTimedOut(request: .readRequest, milliseconds: 200)) {
            try bearer.request(.readRequest(handle: 3), timeout: .milliseconds(200))
        }
        #expect(started.duration(to: .now) < .seconds(1))
    }

    @Test func malformedAndOversizedFramesAreReportedNotFatal() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x1B, 0x01])  // notification without a whole handle
            try? s.send([0x1B, 0x05, 0x00] + [UInt8](repeating: 7, count: 297))  // 300 bytes > MTU 23
            try? s.send([0x05, 0x03])  // Find Information Response with format 3
            try? s.send([0x0B, 0x32, 0x38, 0x37])  // the read response
        }
        let bearer = ATTBearer(socket: socket)
        var seen: [ATTBearerDiagnostic] = []
        bearer.onDiagnostic = { seen.append($0) }
        #expect(try bearer.request(.readRequest(handle: 9), timeout: .seconds(2)) == .readResponse(value: Array("287".utf8)))
        #expect(seen.count == 3)
        #expect(seen.contains(.oversizedFrame(length: 300, mtu: 23)))
        #expect(seen.filter { if case .malformedPDU = $0 { true } else { false } }.count == 2)
        #expect(bearer.queuedNotifications == 0)
    }

    @Test func attErrorResponseIsSurfacedByName() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x01, 0x0A, 0x09, 0x00, 0x0F])  // Read Request on 0x0009 failed: Insufficient Encryption
        }
        let bearer = ATTBearer(socket: socket)
        let error = #expect(throws: ATTBearerError.self) { try bearer.request(.readRequest(handle: 9), timeout: .seconds(2)) }
        #expect(error == .attError(request: .readRequest, handle: 9, code: .insufficientEncryption))
        #expect(error?.description.contains("Insufficient Encryption (0x0F)") == true)
        #expect(error?.description.contains("pair") == true)
    }

    @Test func peerClosingIsALinkDropNotAHang() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            s.close()
        }
        let bearer = ATTBearer(socket: socket)
        #expect(throws: ATTBearerError.linkClosed) { try bearer.request(.readRequest(handle: 1), timeout: .seconds(5)) }
        #expect(throws: ATTBearerError.linkClosed) { try bearer.nextNotification(timeout: .milliseconds(10)) }
    }

    @Test func peerRequestsAreAnsweredAndOutOfRangeMTUClamped() throws {
        let (peer, socket) = try ScriptedPeer.start { s, peer in
            try? s.send([0x02, 0x10, 0x00])  // the peripheral asks for MTU 16 (< 23)
            _ = peer.next(s)  // our MTU response
            try? s.send([0x0A, 0x01, 0x00])  // a Read Request to the client
            _ = peer.next(s)  // our error response
            _ = peer.next(s)  // the client's write command
        }
        let bearer = ATTBearer(socket: socket)
        var seen: [ATTBearerDiagnostic] = []
        bearer.onDiagnostic = { seen.append($0) }
        _ = try bearer.nextNotification(timeout: .milliseconds(300))
        try bearer.send(.writeCommand(handle: 4, value: [1]))
        peer.done.wait()
        #expect(bearer.mtu == 23)
        #expect(seen.contains(.mtuOutOfRange(proposed: 16, used: 23)))
        #expect(peer.received.withLock { $0 } == [[0x03, 0xF7, 0x00], [0x01, 0x0A, 0x00, 0x00, 0x06], [0x52, 0x04, 0x00, 0x01]])
        #expect(throws: ATTBearerError.notARequest(.writeResponse)) { try bearer.request(.writeResponse) }
    }
}

@Suite("Bracelet session against a misbehaving peer")
struct SessionPeerTests {
    struct NoSink: TransferSink { func commit(_ file: TransferredFile) throws {} }
    struct FixedConnector: BraceletConnector {
        let make: () throws -> SeqPacketSocket
        func connect() throws -> SeqPacketSocket { try make() }
        var label: String { "scripted peer" }
    }

    /// A device whose Model Number is not a bracelet's is refused by name, not guessed at.
    @Test func unknownModelIsRefused() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x03, 0xF7, 0x00])  // MTU 247
            _ = peer.next(s)
            // One primary service 0x180A at 1...3 with Model Number (value handle 3).
            try? s.send([0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x0A, 0x18])
            _ = peer.next(s)
            try? s.send([0x01, 0x10, 0x04, 0x00, 0x0A])  // no more services
            _ = peer.next(s)
            try? s.send([0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x24, 0x2A])
            _ = peer.next(s)
            try? s.send([0x01, 0x08, 0x03, 0x00, 0x0A])
            _ = peer.next(s)  // read Model Number
            try? s.send([0x0B] + Array("HRM-Pro".utf8))
        }
        let box = SocketBox(socket)
        var c = SessionConfiguration()
        c.requestTimeout = .seconds(2)
        let session = BraceletSession(connector: FixedConnector { try box.take() }, sink: NoSink(), configuration: c)
        #expect(throws: SessionError.unsupportedDevice("HRM-Pro")) { try session.run() }
    }

    final class SocketBox {
        var socket: SeqPacketSocket?
        init(_ s: SeqPacketSocket) { socket = s }
        struct Used: Error {}
        func take() throws -> SeqPacketSocket {
            guard let s = socket else { throw Used() }
            socket = nil
            return s
        }
    }
}
