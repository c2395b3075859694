import Foundation
import Testing
@testable import BraceletTransport

/// The ATT client against a peer that misbehaves: floods, MTU extremes, unexpected responses.
@Suite("ATT bearer against a hostile peer")
struct HostilePeerTests {
    @Test func aNotificationFloodKeepsMemoryBounded() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)  // the read request
            for i in 0..<20_000 { try? s.send([0x1B, 0x21, 0x00, UInt8(truncatingIfNeeded: i)]) }
            try? s.send([0x0B, 0x01])
        }
        var configuration = ATTBearer.Configuration()
        configuration.maximumQueuedNotifications = 50
        let bearer = ATTBearer(socket: socket, configuration: configuration)
        #expect(try bearer.request(.readRequest(handle: 3), timeout: .seconds(10)) == .readResponse(value: [0x01]))
        #expect(bearer.queuedNotifications == 50)
        #expect(bearer.storedNotifications <= 50 + 4_097)
        #expect(bearer.diagnosticCount == 20_000 - 50)
        // The newest are kept.
        #expect(try bearer.nextNotification(timeout: .zero)?.value == [UInt8(truncatingIfNeeded: 20_000 - 50)])
    }

    @Test func mtu517IsUsedAndAnythingLargerIsDropped() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x03, 0x05, 0x02])  // server MTU 517
            try? s.send([0x1B, 0x21, 0x00] + [UInt8](repeating: 1, count: 514))  // exactly 517
            try? s.send([0x1B, 0x21, 0x00] + [UInt8](repeating: 2, count: 515))  // 518
        }
        var configuration = ATTBearer.Configuration()
        configuration.preferredMTU = 517
        let bearer = ATTBearer(socket: socket, configuration: configuration)
        _ = try bearer.request(.exchangeMTURequest(clientRxMTU: 517), timeout: .seconds(2))
        #expect(bearer.mtu == 517)
        #expect(try bearer.nextNotification(timeout: .seconds(2))?.value.count == 514)
        #expect(try bearer.nextNotification(timeout: .milliseconds(300)) == nil)
        #expect(bearer.diagnostics == [.oversizedFrame(length: 518, mtu: 517)])
    }

    @Test func anMTUBelow23IsRaisedTo23AndReported() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x03, 0x0A, 0x00])  // server MTU 10: below the minimum
            try? s.send([0x1B, 0x21, 0x00] + [UInt8](repeating: 3, count: 21))  // 24 bytes > 23
        }
        let bearer = ATTBearer(socket: socket)
        _ = try bearer.request(.exchangeMTURequest(clientRxMTU: 247), timeout: .seconds(2))
        #expect(bearer.mtu == 23)
        #expect(try bearer.nextNotification(timeout: .milliseconds(300)) == nil)
        #expect(bearer.diagnostics == [.mtuOutOfRange(proposed: 10, used: 23), .oversizedFrame(length: 24, mtu: 23)])
    }

    @Test func aResponseToAnotherRequestIsReportedAndSkipped() throws {
        let (_, socket) = try ScriptedPeer.start { s, peer in
            _ = peer.next(s)
            try? s.send([0x13])  // a Write Response nobody asked for
            try? s.send([0x01, 0x12, 0x99, 0x00, 0x0A])  // an Error Response to a write, wrong handle
            try? s.send([0x0B, 0x42])
        }
        let bearer = ATTBearer(socket: socket)
        #expect(try bearer.request(.readRequest(handle: 7), timeout: .seconds(2)) == .readResponse(value: [0x42]))
        #expect(bearer.diagnostics == [.unexpectedResponse(.writeResponse), .unexpectedResponse(.errorResponse)])
    }
}
