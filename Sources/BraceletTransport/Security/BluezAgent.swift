import BraceletProtocol
import Glibc
import Synchronization

/// A pairing agent for bluetoothd: an `org.bluez.Agent1` object on the system bus, registered with
/// `org.bluez.AgentManager1` as the default agent. When bluetoothd runs it receives the kernel's
/// User Passkey Request of the pairing that `listen`'s connect starts and, with no agent, refuses
/// it; with this agent it asks `RequestPasskey` and sends the kernel the number answered. So the
/// passkey is answered once, here, and ``PairingAgent`` leaves the management reply to bluetoothd.
///
/// Registering also makes bluetoothd set every adapter's IO capability to the agent's. The agent
/// stays registered until ``close()`` (or until the process ends: bluetoothd drops agents whose
/// connection goes). Thread-safe: one thread at a time runs ``service()``.
public final class BluezAgent: Sendable {
    /// What the agent answers for.
    public struct Settings: Sendable, Hashable {
        /// The adapter whose pairing it answers (`hci0`).
        public var adapter: String
        /// The bracelet it answers for; every other device's requests are refused.
        public var device: BluetoothAddress
        /// The passkey given for the bracelet.
        public var passkey: UInt32
        /// The IO capability declared to bluetoothd.
        public var capability: IOCapability

        /// Settings for `device` on `adapter`.
        public init(adapter: String, device: BluetoothAddress, passkey: UInt32, capability: IOCapability) {
            self.adapter = adapter
            self.device = device
            self.passkey = passkey
            self.capability = capability
        }
    }

    /// The settings.
    public let settings: Settings
    /// The agent's object path on the bus.
    public let objectPath: String
    /// bluetoothd's unique bus name (the only sender whose calls are answered).
    public let bluetoothd: String
    private let library: LibDBus
    private let connection: Mutex<OpaquePointer?>

    /// How long a call to bluetoothd may take.
    static let callTimeoutMilliseconds: Int32 = 5_000

    /// Connects to the system bus and registers as bluetoothd's default agent.
    public init(settings: Settings) throws(BluezAgentError) {
        let library = try LibDBus.shared.get()
        let bus = try library.withError { error throws(BluezAgentError) -> OpaquePointer in
            guard let bus = library.busGetPrivate(LibDBus.systemBus, error) else {
                let (name, message) = LibDBus.errorContents(error) ?? ("org.freedesktop.DBus.Error.Failed", "no reason given")
                throw .systemBus(name: name, message: message)
            }
            return bus
        }
        // libdbus would end the process when the bus goes; listen ends on its own terms.
        library.setExitOnDisconnect(bus, 0)
        let path = "/org/bracelet/agent\(getpid())"
        do throws(BluezAgentError) {
            let registered = try Self.call(library, bus, "RegisterAgent", [.objectPath(path), .string(settings.capability.bluezName)])
            bluetoothd = registered.sender ?? "org.bluez"
            do throws(BluezAgentError) { _ = try Self.call(library, bus, "RequestDefaultAgent", [.objectPath(path)]) } catch {
                _ = try? Self.call(library, bus, "UnregisterAgent", [.objectPath(path)])
                throw error
            }
        } catch {
            library.connectionClose(bus)
            library.connectionUnref(bus)
            throw error
        }
        self.settings = settings
        self.objectPath = path
        self.library = library
        self.connection = Mutex(bus)
    }

    deinit { close() }

    /// Answers the calls that arrived, without waiting. Returns what was answered.
    @discardableResult
    public func service() -> [BluezAgentEvent] {
        let policy = AgentPolicy(settings: settings, objectPath: objectPath, bluetoothd: bluetoothd)
        let library = self.library
        return connection.withLock { bus -> [BluezAgentEvent] in
            guard let bus else { return [] }
            var events: [BluezAgentEvent] = []
            _ = library.readWrite(bus, 0)
            while let raw = library.popMessage(bus) {
                let call = DBusMessage(adopting: raw, library: library)
                let (reply, event) = policy.answer(call)
                if let reply, !call.noReplyExpected { _ = library.send(bus, reply.pointer, nil) }
                if let event { events.append(event) }
            }
            library.flush(bus)
            return events
        }
    }

    /// Unregisters the agent and leaves the bus (bluetoothd's previous default agent, if any, is the
    /// default again). Calling it again does nothing.
    public func close() {
        let library = self.library, path = objectPath
        connection.withLock { bus in
            guard let open = bus else { return }
            _ = try? Self.call(library, open, "UnregisterAgent", [.objectPath(path)])
            library.connectionClose(open)
            library.connectionUnref(open)
            bus = nil
        }
    }

    /// Calls `member` of bluetoothd's agent manager and waits for the reply.
    static func call(_ library: LibDBus, _ bus: OpaquePointer, _ member: String, _ arguments: [DBusArgument]) throws(BluezAgentError)
        -> DBusMessage {
        guard let message = DBusMessage.methodCall(library, destination: "org.bluez", path: "/org/bluez", interface: "org.bluez.AgentManager1",
                                                   member: member, arguments: arguments) else {
            throw .refused(method: member, name: "org.freedesktop.DBus.Error.NoMemory", message: "the call could not be built")
        }
        return try library.withError { error throws(BluezAgentError) -> DBusMessage in
            guard let raw = library.sendWithReplyAndBlock(bus, message.pointer, callTimeoutMilliseconds, error) else {
                let (name, text) = LibDBus.errorContents(error) ?? ("org.freedesktop.DBus.Error.Failed", "no reason given")
                throw .refused(method: member, name: name, message: text)
            }
            return DBusMessage(adopting: raw, library: library)
        }
    }
}

extension IOCapability {
    /// The name bluetoothd's RegisterAgent takes.
    var bluezName: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        }
    }
}
