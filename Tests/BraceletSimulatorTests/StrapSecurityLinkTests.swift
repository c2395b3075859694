import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// A simulated strap whose measurement subscription needs a secured link, served on a Unix socket.
/// A Unix socket has no Bluetooth security, so the link's security the strap sees is the test's
/// stand-in for the kernel's report: what the client's connector says it raised the link to.
final class ServedStrap: Sendable {
    let served: ServedBracelet
    /// The link's security as the strap reads it, and what the strap did.
    let seen = StrapSeen()
    var path: String { served.path }

    init(requires strap: StrapSecurity) throws {
        let seen = self.seen
        served = try ServedBracelet(model: .v2, days: 2, profile: .heartRate, measurementSecurity: strap.requiredLevel,
                                    linkSecurity: { _ in seen.link }, onEvent: { event in
                                        if case .sensorValue = event { return }
                                        seen.append(event)
                                    })
    }

    /// Refusals the strap answered.
    var refusals: [SimulatorEvent] { seen.events.filter { if case .refused = $0 { true } else { false } } }

    func configuration(live: Duration = .milliseconds(2_300)) -> SessionConfiguration {
        var c = served.configuration()
        c.liveDuration = live
        c.maximumBackoff = .milliseconds(100)
        return c
    }
}

/// The link's security as a served strap reads it (`nil`: not secured), and what it did.
final class StrapSeen: Sendable {
    private let state = Mutex<(link: LinkSecurity?, events: [SimulatorEvent])>((nil, []))
    var link: LinkSecurity? {
        get { state.withLock { $0.link } }
        set { state.withLock { $0.link = newValue } }
    }
    func append(_ event: SimulatorEvent) { state.withLock { $0.events.append(event) } }
    var events: [SimulatorEvent] { state.withLock { $0.events } }
}

/// Connects over the Unix socket and "raises" the link the way the kernel would report it: the
/// strap then reads `grants` as the link's security (nothing when `grants` is `nil`: the raise
/// seems to succeed but the link stays as it was). Records every level asked for.
struct RaisingConnector: BraceletConnector {
    let strap: ServedStrap
    var grants: (LESecurityLevel) -> LinkSecurity? = { LinkSecurity(level: $0, keySize: 16) }
    var reports: (LESecurityLevel) -> LinkSecurity? = { LinkSecurity(level: $0, keySize: 16) }
    var failure: (any Error)?
    /// Asking for this level cannot be met on the link: the connector asks for a new link and
    /// secures the next one to it from the start (as ``SecureConnector`` does for authentication).
    var needsNewLinkFor: LESecurityLevel?
    let asked = AskedLevels()
    var label: String { "unix:\(strap.path)" }

    final class AskedLevels: Sendable {
        private let levels = Mutex<(asked: [LESecurityLevel], learned: LESecurityLevel?, connections: Int)>(([], nil, 0))
        func append(_ level: LESecurityLevel) { levels.withLock { $0.asked.append(level) } }
        var all: [LESecurityLevel] { levels.withLock { $0.asked } }
        var learned: LESecurityLevel? {
            get { levels.withLock { $0.learned } }
            set { levels.withLock { $0.learned = newValue } }
        }
        func connected() { levels.withLock { $0.connections += 1 } }
        var connections: Int { levels.withLock { $0.connections } }
    }

    func connect() throws -> SeqPacketSocket {
        asked.connected()
        strap.seen.link = asked.learned.map { LinkSecurity(level: $0, keySize: 16) }
        return try SeqPacketSocket.connect(unixPath: strap.path)
    }

    func raiseSecurity(of socket: SeqPacketSocket, to level: LESecurityLevel) throws -> LinkSecurity? {
        asked.append(level)
        if let failure { throw failure }
        if level == needsNewLinkFor {
            asked.learned = level
            throw SecurityNeedsNewLink(level: level)
        }
        let granted = grants(level)
        strap.seen.link = granted
        return reports(level)
    }
}

@Suite("A strap that lets only a secured link subscribe, and the client raising its link")
struct StrapSecurityLinkTests {
    typealias Events = HeartRateSensorLinkTests.Events

    @Test func theRuleIsBlueZs() {
        #expect(SecurityUpgrade.level(after: .insufficientEncryption, current: .low) == .medium)
        #expect(SecurityUpgrade.level(after: .insufficientEncryption, current: .medium) == nil)
        #expect(SecurityUpgrade.level(after: .insufficientAuthentication, current: .low) == .high)
        #expect(SecurityUpgrade.level(after: .insufficientAuthentication, current: .medium) == .high)
        #expect(SecurityUpgrade.level(after: .insufficientAuthentication, current: .high) == nil)
        #expect(SecurityUpgrade.level(after: .insufficientAuthorization, current: .low) == nil)
        #expect(SecurityUpgrade.level(after: .writeNotPermitted, current: .low) == nil)
    }

    @Test func insufficientEncryptionRaisesTheLinkToEncryptedAndTheSubscriptionIsSentAgain() throws {
        let strap = try ServedStrap(requires: .encrypted)
        let connector = RaisingConnector(strap: strap)
        let events = Events()
        let report = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration(),
                                         onEvent: { events.append($0) }).run()
        #expect(connector.asked.all == [.medium])
        let raised = LinkSecurity(level: .medium, keySize: 16)
        #expect(events.list.contains(.securityRaised(after: .insufficientEncryption, link: raised)))
        // Refused once on the unsecured link, accepted on the raised one: samples follow.
        #expect(strap.refusals == [.refused(.writeRequest, link: nil)])
        #expect(report.sensorSamples >= 2 && events.list.filter({ if case .sensorSample = $0 { true } else { false } }).count == report.sensorSamples)
        #expect(report.connections == 1 && report.syncCompleted)
    }

    @Test func insufficientAuthenticationRaisesTheLinkToAuthenticated() throws {
        let strap = try ServedStrap(requires: .authenticated)
        let connector = RaisingConnector(strap: strap)
        let events = Events()
        let report = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration(),
                                         onEvent: { events.append($0) }).run()
        #expect(connector.asked.all == [.high])
        #expect(events.list.contains(.securityRaised(after: .insufficientAuthentication, link: LinkSecurity(level: .high, keySize: 16))))
        #expect(report.sensorSamples >= 2)
    }

    @Test func authenticationThatNeedsANewLinkReconnectsSecuredAndSubscribes() throws {
        let strap = try ServedStrap(requires: .authenticated)
        let connector = RaisingConnector(strap: strap, needsNewLinkFor: .high)
        let events = Events()
        let report = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration(),
                                         onEvent: { events.append($0) }).run()
        // Refused on the first link, asked for a new one; the second, secured from the start, subscribes.
        #expect(connector.asked.all == [.high])
        #expect(connector.asked.connections == 2 && report.connections == 2)
        #expect(strap.refusals == [.refused(.writeRequest, link: nil)])
        #expect(events.list.contains { if case .linkLost(let why) = $0 { why.contains("reconnecting to pair with the passkey first") } else { false } })
        #expect(report.sensorSamples >= 2)
    }

    @Test func aLinkThatCannotBeRaisedEndsTheSessionSayingWhatTheDeviceWants() throws {
        let strap = try ServedStrap(requires: .encrypted)
        var caught: SessionError?
        do { _ = try BraceletSession(connector: UnixSocketConnector(path: strap.path), sink: RefusingTestSink(),
                                     configuration: strap.configuration()).run() } catch { caught = error }
        guard case .cannotConnect(let text) = try #require(caught) else { Issue.record("expected cannotConnect, got \(String(describing: caught))"); return }
        #expect(text.contains("Insufficient Encryption (0x0F)"))
        #expect(text.contains("--security auto"))
        // Not retried: one connection, one refusal.
        #expect(strap.refusals.count == 1)
        #expect(strap.seen.events.filter { if case .connected = $0 { true } else { false } }.count == 1)
    }

    @Test func aSecondRefusalAfterTheRaiseIsTheAnswerAndTheRequestIsSentOnlyOnceMore() throws {
        let strap = try ServedStrap(requires: .encrypted)
        // The connector says the link is encrypted, but the strap still sees it unsecured.
        let connector = RaisingConnector(strap: strap, grants: { _ in nil })
        var caught: SessionError?
        do { _ = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration()).run() } catch { caught = error }
        guard case .cannotConnect(let text) = try #require(caught) else { Issue.record("expected cannotConnect"); return }
        #expect(text.contains("Insufficient Encryption (0x0F)"))
        #expect(connector.asked.all == [.medium])
        #expect(strap.refusals.count == 2)
    }

    @Test func aRaiseThatFallsShortIsNotRetried() throws {
        // Authentication wanted; the pairing only reached an unauthenticated link.
        let strap = try ServedStrap(requires: .authenticated)
        let connector = RaisingConnector(strap: strap, reports: { _ in LinkSecurity(level: .medium, keySize: 16) })
        var caught: SessionError?
        do { _ = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration()).run() } catch { caught = error }
        guard case .cannotConnect(let text) = try #require(caught) else { Issue.record("expected cannotConnect"); return }
        #expect(text.contains("Insufficient Authentication (0x05)"))
        #expect(strap.refusals.count == 1)
    }

    @Test func aPairingThatFailsEndsTheSessionWithItsReason() throws {
        let strap = try ServedStrap(requires: .authenticated)
        let refusal = PairingError.wrongPasskey(address: "00:AA:01:01:00:01", passkey: 123_456)
        let connector = RaisingConnector(strap: strap, failure: refusal)
        var caught: SessionError?
        do { _ = try BraceletSession(connector: connector, sink: RefusingTestSink(), configuration: strap.configuration()).run() } catch { caught = error }
        guard case .cannotConnect(let text) = try #require(caught) else { Issue.record("expected cannotConnect"); return }
        #expect(text.contains("Insufficient Authentication (0x05)"))
        #expect(text.contains(refusal.description))
        #expect(strap.refusals.count == 1)
    }

    @Test func aDroppedLinkWhileRaisingReconnects() throws {
        let strap = try ServedStrap(requires: .encrypted)
        let dropped = RaisingConnector(strap: strap, failure: LinkError.closed)
        var configuration = strap.configuration()
        configuration.maximumReconnects = 2
        var caught: SessionError?
        do { _ = try BraceletSession(connector: dropped, sink: RefusingTestSink(), configuration: configuration).run() } catch { caught = error }
        guard case .gaveUp(let attempts, _) = try #require(caught) else { Issue.record("expected gaveUp, got \(String(describing: caught))"); return }
        #expect(attempts == 2)
        #expect(dropped.asked.all == [.medium, .medium])
    }
}

/// A strap holds no files; a sink that is never used must not be either.
struct RefusingTestSink: TransferSink {
    struct Unexpected: Error {}
    func commit(_ file: TransferredFile) throws { throw Unexpected() }
}
