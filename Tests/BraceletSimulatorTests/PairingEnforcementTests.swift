import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Testing

/// One ```vector block of protocol-specs/security-vectors.md.
struct SecurityVector: CustomTestStringConvertible, Sendable {
    var name: String
    var request: [UInt8]
    var answer: [UInt8]
    var state: UInt8
    var link: String
    var testDescription: String { "state 0x\(hexString([state])): \(name)" }

    static let all: [SecurityVector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol-specs/security-vectors.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.components(separatedBy: "```vector\n").dropFirst().map { block in
            var fields: [String: String] = [:]
            for line in block.components(separatedBy: "```")[0].split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            }
            let decoded = fields["decoded"] ?? ""
            func field(_ name: String) -> String {
                decoded.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
            }
            return SecurityVector(name: fields["name"] ?? "", request: bytes(fromHex: fields["request"] ?? "") ?? [],
                                  answer: bytes(fromHex: fields["hex"] ?? "") ?? [],
                                  state: UInt8(field("state").dropFirst(2), radix: 16) ?? 0xFF, link: field("link"))
        }
    }()
}

@Suite("Pairing: the simulated bracelet enforces protocol-specs §11")
struct PairingEnforcementTests {
    static func server() throws -> SimulatedGATTServer {
        let history = try PhysiologyModel.simulatedHistory(model: .v2, serial: "SEC00001", days: 1, seed: 3, endingAt: 1_780_000_000)
        return SimulatedGATTServer(firmware: SimulatedFirmware(history: history, beatWindows: []))
    }

    @Test func theVectorFileIsThere() {
        // 4 states x 3 links x 2 targets.
        #expect(SecurityVector.all.count == 24)
    }

    @Test(arguments: SecurityVector.all)
    func answersEachVector(_ vector: SecurityVector) throws {
        var server = try Self.server()
        let required = BraceletSecurity.requiredLevel(pairingState: vector.state)
        let link: LinkSecurity = switch vector.link {
        case "low": LinkSecurity(level: .low, keySize: 0)
        case "encrypted": LinkSecurity(level: .medium, keySize: 16)
        default: LinkSecurity(level: .high, keySize: 16)
        }
        let pdu = try ATTPDU.parse(vector.request)
        let answer = try server.securityRefusal(for: pdu, link: link, required: required)
            ?? #require(server.receive(pdu, now: 1_780_000_100).pdus.first.map { [$0] })
        #expect(answer.map { $0.encode() } == [vector.answer])
    }

    @Test func theVectorHandlesAreTheSimulatedV2Handles() throws {
        let handles = try Self.server().handles
        #expect(handles.command == 0x0014)
        #expect(handles.cccd[handles.heartRate] == 0x001E)
    }

    @Test func writeCommandsOnAWeakLinkAreDroppedSilently() throws {
        let server = try Self.server()
        let command = ATTPDU.writeCommand(handle: server.handles.command, value: [0x03, 0x30])
        #expect(server.securityRefusal(for: command, link: nil, required: .medium) == [])
        #expect(server.securityRefusal(for: command, link: LinkSecurity(level: .medium, keySize: 16), required: .medium) == nil)
        // Reads and discovery stay open on any link.
        #expect(server.securityRefusal(for: .readRequest(handle: 3), link: nil, required: .high) == nil)
        #expect(server.securityRefusal(for: .exchangeMTURequest(clientRxMTU: 247), link: nil, required: .high) == nil)
    }

    @Test func pairingModesAdvertiseAndRequireWhatTheSpecSays() {
        #expect(SimulatedPairing.passkey.advertisedState == 0x00)
        #expect(SimulatedPairing.passkey.requiredLevel == .high)
        #expect(SimulatedPairing.passkey.ioCapability == .keyboardOnly)
        #expect(SimulatedPairing.justWorks.advertisedState == 0x01)
        #expect(SimulatedPairing.justWorks.requiredLevel == .medium)
        #expect(SimulatedPairing.none.requiredLevel == nil)
        #expect(!SimulatedPairing.none.bondable)
        let ad = BraceletAdvertisement.simulated(model: .v2, serial: "V2SIM001", pairingState: SimulatedPairing.passkey.advertisedState)
        #expect(ad.encode().count <= 31)
        #expect(ad.pairingState == 0x00)
    }

    @Test func aServedBraceletRefusesWritesOnALinkWithoutSecurity() throws {
        let history = try PhysiologyModel.simulatedHistory(model: .v2, serial: "SEC00002", days: 1, seed: 3, endingAt: 1_780_000_000)
        let events = EventLog()
        let server = SimulatorServer(server: SimulatedGATTServer(firmware: SimulatedFirmware(history: history, beatWindows: [])),
                                     live: nil, clock: { 1_780_000_100 }, requiredSecurity: .high, onEvent: { events.append($0) })
        let (a, b) = try SeqPacketSocket.pairDescriptors()
        Thread.detachNewThread { server.serve(connection: SeqPacketSocket(adopting: b)) }
        defer { server.stop() }
        var configuration = ATTBearer.Configuration()
        configuration.requestTimeout = .seconds(5)
        let gatt = GATTClient(bearer: ATTBearer(socket: SeqPacketSocket(adopting: a), configuration: configuration))
        let db = try gatt.discoverAll()
        let model = try #require(db.characteristic(GATTNumbers.modelNumber))
        #expect(try gatt.read(handle: model.valueHandle) == Array("287-2".utf8))
        let response = try #require(db.characteristic(GATTNumbers.responseCharacteristic))
        #expect(throws: GATTError.att(.attError(request: .writeRequest, handle: server.snapshot.handles.cccd[response.valueHandle]!,
                                                code: .insufficientAuthentication))) {
            try gatt.enableNotifications(response)
        }
        let command = try #require(db.characteristic(GATTNumbers.commandCharacteristic))
        #expect(throws: GATTError.att(.attError(request: .writeRequest, handle: command.valueHandle, code: .insufficientAuthentication))) {
            try gatt.write(handle: command.valueHandle, value: Command.status.encode())
        }
        #expect(server.snapshot.subscriptions.isEmpty)
        #expect(!events.all.contains { if case .command = $0 { true } else { false } })
        #expect(events.all.filter { if case .refused = $0 { true } else { false } }.count == 2)
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SimulatorEvent] = []
    func append(_ e: SimulatorEvent) { lock.lock(); events.append(e); lock.unlock() }
    var all: [SimulatorEvent] { lock.lock(); defer { lock.unlock() }; return events }
}
