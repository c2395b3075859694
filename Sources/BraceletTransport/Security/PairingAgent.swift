import BraceletProtocol
import Synchronization

/// Takes part in LE pairing on one adapter through the kernel's management interface, the way
/// bluetoothd's agent would when bluetoothd does not run: sets the adapter's IO capability,
/// bondability and Secure Connections, optionally replaces its bonds, answers every User Passkey
/// Request with a fixed passkey (or, when bluetoothd runs, leaves that answer to bluetoothd and a
/// ``BluezAgent``), and remembers how each peer's pairing went.
///
/// Needs root or CAP_NET_ADMIN. Thread-safe: one thread at a time runs ``service(timeout:)`` (the
/// socket is locked meanwhile), any thread may read the outcomes.
public final class PairingAgent: Sendable {
    /// How the adapter pairs.
    public struct Settings: Sendable, Hashable {
        /// The adapter (`hci0`), or `nil` for the first one.
        public var adapter: String?
        /// The IO capability declared to peers.
        public var ioCapability: IOCapability
        /// The passkey typed in answer to a passkey request; `nil` refuses them.
        public var passkey: UInt32?
        /// Whether pairings request bonding and keep their keys (off: the kernel refuses a peer that asks to bond).
        public var bondable: Bool
        /// Keys that replace every bond of the adapter at start; `nil` keeps the kernel's.
        public var bonds: [LongTermKey]?

        /// Settings for `adapter`.
        public init(adapter: String?, ioCapability: IOCapability, passkey: UInt32?, bondable: Bool, bonds: [LongTermKey]? = nil) {
            self.adapter = adapter
            self.ioCapability = ioCapability
            self.passkey = passkey
            self.bondable = bondable
            self.bonds = bonds
        }
    }

    /// How pairing with one peer went since ``reset(_:)``.
    public struct Outcome: Sendable, Hashable {
        /// A passkey was asked for and answered.
        public var passkeyAnswered = false
        /// The status of an Authentication Failed event.
        public var failure: UInt8?
        /// The reason of a Device Disconnected event.
        public var disconnectReason: UInt8?
        /// A key of a new pairing arrived.
        public var paired = false
    }

    /// The adapter.
    public let adapter: ManagementAdapter
    /// The settings applied.
    public let settings: Settings
    /// Whether LE Secure Connections was switched on (else legacy pairing only).
    public let secureConnections: Bool
    private let socket: Mutex<ManagementSocket>
    private let outcomes = Mutex<[BluetoothAddress: Outcome]>([:])
    private let peerPasskeys = Mutex<[BluetoothAddress: UInt32]>([:])
    private let bluetoothdAgent = Mutex<BluezAgent?>(nil)
    private let onEvent: @Sendable (PairingEvent) -> Void

    /// Applies `settings` to the adapter. `onEvent` sees every pairing event of the adapter (from
    /// the thread that runs ``service(timeout:)``).
    public init(settings: Settings, onEvent: @escaping @Sendable (PairingEvent) -> Void = { _ in }) throws(BluetoothError) {
        let socket = try ManagementSocket()
        let adapter = try ManagementAdapter.resolve(settings.adapter, on: socket)
        let name = adapter.name
        try socket.command(ManagementOpcode.setIOCapability, index: adapter.index, parameters: [settings.ioCapability.rawValue],
                           operation: "setting \(name)'s pairing IO capability", adapter: name)
        try adapter.set(ManagementOpcode.setBondable, settings.bondable, operation: "making \(name) bondable", on: socket)
        // Secure Connections when the controller has it; legacy pairing (also passkey entry) otherwise.
        let info = try adapter.information(on: socket)
        var secure = false
        if info.supportedSettings & 0x0800 != 0 {
            secure = (try? adapter.set(ManagementOpcode.setSecureConnections, true, operation: "enabling Secure Connections on \(name)",
                                       on: socket)) != nil
        }
        if let bonds = settings.bonds {
            try socket.command(ManagementOpcode.loadLongTermKeys, index: adapter.index, parameters: PairingCommand.loadLongTermKeys(bonds),
                               operation: "loading \(bonds.count) bond(s) into \(name)", adapter: name)
        }
        self.adapter = adapter
        self.settings = settings
        self.secureConnections = secure
        self.socket = Mutex(socket)
        self.onEvent = onEvent
    }

    /// Leaves the answer to passkey requests to bluetoothd and `agent` from now on: bluetoothd sees
    /// the same management event and answers it through its agent, so a second answer here would
    /// be one too many. `agent` is serviced by ``service(timeout:)``.
    public func answerPasskeysThroughBluetoothd(_ agent: BluezAgent) {
        bluetoothdAgent.withLock { $0 = agent }
    }

    /// Answers `address`'s passkey requests with `passkey` instead of the settings' one. One agent
    /// serves every pairing of its adapter: the kernel sends each request to every management
    /// socket and takes the first answer, so two agents on one adapter would race with their own
    /// passkeys (and overwrite each other's IO capability).
    public func setPasskey(_ passkey: UInt32, for address: BluetoothAddress) {
        peerPasskeys.withLock { $0[address] = passkey }
    }

    /// The passkey typed when `address` asks for one; `nil` when its requests are refused.
    public func passkey(for address: BluetoothAddress) -> UInt32? {
        peerPasskeys.withLock { $0[address] } ?? settings.passkey
    }

    /// Forgets what is known about `address`'s pairing (before a new connection attempt).
    public func reset(_ address: BluetoothAddress) {
        outcomes.withLock { $0[address] = nil }
    }

    /// How pairing with `address` went since the last ``reset(_:)``.
    public func outcome(_ address: BluetoothAddress) -> Outcome {
        outcomes.withLock { $0[address] ?? Outcome() }
    }

    /// Handles the management events arriving within `timeout` (then any already queued) and the
    /// calls bluetoothd made to its agent: answers passkey requests, records outcomes, passes each
    /// event to `onEvent`. Returns them.
    @discardableResult
    public func service(timeout: Duration) -> [PairingEvent] {
        let index = adapter.index, name = adapter.name
        let bluez = bluetoothdAgent.withLock { $0 }
        var events: [PairingEvent] = socket.withLock { socket in
            var out: [PairingEvent] = []
            var wait = timeout
            while let packet = try? socket.nextEvent(timeout: wait) {
                wait = .milliseconds(1)
                guard packet.index == index else { continue }
                if packet.code == ManagementEventCode.userConfirmRequest, bluez == nil { Self.confirm(packet.parameters, index: index, name: name, on: socket) }
                guard let event = PairingEvent(packet) else { continue }
                out.append(event)
                if case .passkeyRequested(let device) = event, bluez == nil {
                    if let passkey = self.passkey(for: device.address) {
                        _ = try? socket.command(ManagementOpcode.userPasskeyReply, index: index,
                                                parameters: PairingCommand.passkeyReply(to: device, passkey: passkey),
                                                operation: "answering the passkey request of \(device)", adapter: name)
                    } else {
                        _ = try? socket.command(ManagementOpcode.userPasskeyNegativeReply, index: index, parameters: device.wireBytes,
                                                operation: "refusing the passkey request of \(device)", adapter: name)
                    }
                }
            }
            return out
        }
        if let bluez { events += bluez.service().map(PairingEvent.bluetoothdAgent) }
        for event in events {
            outcomes.withLock { all in
                switch event {
                case .passkeyRequested(let d): if bluez == nil { all[d.address, default: Outcome()].passkeyAnswered = self.passkey(for: d.address) != nil }
                case .bluetoothdAgent(.passkeyEntered(let device, _)): all[device, default: Outcome()].passkeyAnswered = true
                case .authenticationFailed(let d, let status): all[d.address, default: Outcome()].failure = status
                case .disconnected(let d, let reason): all[d.address, default: Outcome()].disconnectReason = reason
                case .newLongTermKey(let key, _): all[key.peer.address, default: Outcome()].paired = true
                case .connected, .unpaired, .bluetoothdAgent: break
                }
            }
            onEvent(event)
        }
        return events
    }

    /// Declares `capability` to the peers of links set up from now on. The capability is the
    /// adapter's, and the kernel takes it when a link is set up: a caller that needs different
    /// capabilities for different peers sets up one link at a time.
    public func setIOCapability(_ capability: IOCapability) throws(BluetoothError) {
        let index = adapter.index, name = adapter.name
        try socket.withLock { socket throws(BluetoothError) in
            _ = try socket.command(ManagementOpcode.setIOCapability, index: index, parameters: [capability.rawValue],
                               operation: "setting \(name)'s pairing IO capability", adapter: name)
        }
    }

    /// Ends the link to `device` now, rather than when the kernel drops an idle link (about 2 s
    /// after its last socket closed); false when there was no link.
    @discardableResult
    public func disconnect(_ device: ManagementAddress) throws(BluetoothError) -> Bool {
        let index = adapter.index, name = adapter.name
        return try socket.withLock { socket throws(BluetoothError) -> Bool in
            do throws(BluetoothError) {
                try socket.command(ManagementOpcode.disconnect, index: index, parameters: device.wireBytes,
                                   operation: "disconnecting \(device) on \(name)", adapter: name)
                return true
            } catch {
                // Not Connected (0x02): the link was already gone.
                if case .management(_, let status) = error, status == 0x02 { return false }
                throw error
            }
        }
    }

    /// Answers a User Confirmation Request. The kernel asks it of the side that initiates a Just
    /// Works pairing of LE Secure Connections when a side cannot show a number (confirm hint 1):
    /// there is nothing to compare and the link was asked for, so it is confirmed (unanswered, the
    /// pairing stalls until SMP's 30 s timeout). A number to compare (numeric comparison) can be
    /// shown to no one here, so that is refused.
    static func confirm(_ parameters: [UInt8], index: UInt16, name: String, on socket: ManagementSocket) {
        guard let (opcode, device) = confirmationAnswer(parameters) else { return }
        _ = try? socket.command(opcode, index: index, parameters: device.wireBytes,
                                operation: "answering the pairing confirmation of \(device)", adapter: name)
    }

    /// The answer to a User Confirmation Request's parameters (address, type, confirm hint, value):
    /// User Confirmation Reply for hint 1, Negative Reply otherwise; `nil` when they are too short.
    static func confirmationAnswer(_ parameters: [UInt8]) -> (opcode: UInt16, device: ManagementAddress)? {
        guard parameters.count >= 12, let device = ManagementAddress(parameters, at: 0) else { return nil }
        return (parameters[7] == 1 ? ManagementOpcode.userConfirmReply : ManagementOpcode.userConfirmNegativeReply, device)
    }

    /// Removes every key of `device` on the adapter (and ends a connection to it). Returns false
    /// when the adapter held no bond with it.
    @discardableResult
    public func unpair(_ device: ManagementAddress) throws(BluetoothError) -> Bool {
        let index = adapter.index, name = adapter.name
        return try socket.withLock { socket throws(BluetoothError) -> Bool in
            try PairingAgent.unpair(device, adapter: index, name: name, on: socket)
        }
    }

    /// Unpair Device on `socket`; false when the kernel says the device is not paired.
    static func unpair(_ device: ManagementAddress, adapter index: UInt16, name: String, on socket: ManagementSocket) throws(BluetoothError) -> Bool {
        do {
            try socket.command(ManagementOpcode.unpairDevice, index: index, parameters: PairingCommand.unpair(device, disconnect: true),
                               operation: "removing the bond with \(device) on \(name)", adapter: name)
            return true
        } catch {
            if case .management(_, let status) = error, status == 0x06 { return false }  // Not Paired
            throw error
        }
    }
}

/// Removes a bond without taking part in pairing (`bracelet unpair`).
public enum BondRemoval {
    /// Unpairs `device` on `adapter` (the first adapter when `nil`); false when there was no bond.
    public static func unpair(_ device: ManagementAddress, adapter: String?) throws(BluetoothError) -> (adapter: String, removed: Bool) {
        try LEScanner.checkKernelSupport()
        let socket = try ManagementSocket()
        let resolved = try ManagementAdapter.resolve(adapter, on: socket)
        return (resolved.name, try PairingAgent.unpair(device, adapter: resolved.index, name: resolved.name, on: socket))
    }
}
