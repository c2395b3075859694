import BraceletProtocol
import CBlueZ
import Glibc

/// One packet of the kernel's Bluetooth management interface: `[opcode or event code u16]
/// [controller index u16][parameter length u16][parameters]`, little-endian (BlueZ doc/mgmt-api.txt).
public struct ManagementPacket: Sendable, Hashable {
    /// The command opcode (client to kernel) or event code (kernel to client).
    public var code: UInt16
    /// The controller index (`hciN` is index N), or ``ManagementSocket/noIndex``.
    public var index: UInt16
    /// The parameters.
    public var parameters: [UInt8]

    /// Creates a packet.
    public init(code: UInt16, index: UInt16, parameters: [UInt8]) {
        self.code = code
        self.index = index
        self.parameters = parameters
    }

    /// The bytes on the socket.
    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(6 + parameters.count)
        out.appendLittleEndian(code)
        out.appendLittleEndian(index)
        out.appendLittleEndian(UInt16(parameters.count))
        return out + parameters
    }

    /// Decodes one packet as read from the socket; `nil` when it is shorter than its header says.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 6, let code: UInt16 = bytes.readLittleEndian(at: 0), let index: UInt16 = bytes.readLittleEndian(at: 2),
              let length: UInt16 = bytes.readLittleEndian(at: 4), bytes.count >= 6 + Int(length) else { return nil }
        self.init(code: code, index: index, parameters: Array(bytes[6..<(6 + Int(length))]))
    }
}

/// A socket on the kernel's Bluetooth management interface (HCI_CHANNEL_CONTROL), the interface
/// bluetoothd and btmgmt use: commands get a Command Complete or Command Status event, and the
/// kernel sends every control socket the same events (Device Found, Discovering, ...), so this works
/// alongside bluetoothd.
///
/// Commands that change an adapter need CAP_NET_ADMIN; without it the kernel answers Permission
/// Denied, which becomes ``BluetoothError/permissionDenied(operation:)``. Not thread-safe.
public final class ManagementSocket {
    /// The controller index meaning "no particular adapter" (MGMT_INDEX_NONE).
    public static let noIndex: UInt16 = 0xFFFF
    /// The file descriptor, -1 once closed.
    public private(set) var descriptor: Int32
    /// Events that arrived while a command waited for its answer, oldest first.
    private var pending: [ManagementPacket] = []

    /// Opens and binds a control socket. Throws ``BluetoothError/kernelLacksBluetooth`` on a kernel
    /// without Bluetooth.
    public init() throws(BluetoothError) {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), BTPROTO_HCI)
        if fd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening a Bluetooth management socket") }
        if cbluez_bind_hci_channel(fd, Self.noIndex, UInt16(HCI_CHANNEL_CONTROL)) < 0 {
            let code = errno
            Glibc.close(fd)
            throw BluetoothError.classify(errno: code, operation: "binding the Bluetooth management channel")
        }
        descriptor = fd
    }

    deinit { close() }

    /// Closes the socket. Safe to call twice.
    public func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Sends a command and waits up to `timeout` for its Command Complete (returning its return
    /// parameters) or Command Status. A non-zero status throws the ``BluetoothError`` that says what
    /// to do (`operation` names the step for the message); other events are kept for ``nextEvent(timeout:)``.
    @discardableResult
    public func command(_ opcode: UInt16, index: UInt16, parameters: [UInt8] = [], operation: String,
                        adapter: String? = nil, timeout: Duration = .seconds(5)) throws(BluetoothError) -> [UInt8] {
        try send(ManagementPacket(code: opcode, index: index, parameters: parameters), operation: operation)
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, let packet = try read(timeout: remaining) else {
                throw .system(operation: "\(operation) (no answer from the kernel in time)", errno: ETIMEDOUT)
            }
            let isAnswer = (packet.code == ManagementEventCode.commandComplete || packet.code == ManagementEventCode.commandStatus)
                && packet.index == index && packet.parameters.count >= 3
                && packet.parameters.readLittleEndian(at: 0) as UInt16? == opcode
            guard isAnswer else { pending.append(packet); continue }
            let status = packet.parameters[2]
            if status != 0 {
                throw ManagementStatus.error(status: status, operation: operation, adapter: adapter ?? "hci\(index)")
            }
            return Array(packet.parameters.dropFirst(3))
        }
    }

    /// The next event (a queued one first), or `nil` when none arrives within `timeout`.
    public func nextEvent(timeout: Duration) throws(BluetoothError) -> ManagementPacket? {
        if !pending.isEmpty { return pending.removeFirst() }
        return try read(timeout: timeout)
    }

    /// The next event if one is already waiting (a queued one first), without waiting for one.
    public func waitingEvent() throws(BluetoothError) -> ManagementPacket? {
        if !pending.isEmpty { return pending.removeFirst() }
        return try read(timeout: .milliseconds(1))
    }

    private func send(_ packet: ManagementPacket, operation: String) throws(BluetoothError) {
        let bytes = packet.encode()
        while true {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n == bytes.count { return }
            if n < 0 && errno == EINTR { continue }
            throw BluetoothError.classify(errno: n < 0 ? errno : EIO, operation: operation)
        }
    }

    private func read(timeout: Duration) throws(BluetoothError) -> ManagementPacket? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(max(1, remaining.milliseconds)))
            if ready < 0 {
                if errno == EINTR { return nil }
                throw BluetoothError.classify(errno: errno, operation: "waiting for a management event")
            }
            if ready == 0 { return nil }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw BluetoothError.classify(errno: errno, operation: "reading a management event")
            }
            if let packet = ManagementPacket(bytes: Array(buffer[0..<n])) { return packet }
        }
    }
}

/// Management command opcodes used here (BlueZ doc/mgmt-api.txt).
public enum ManagementOpcode {
    /// Read Controller Index List.
    public static let readIndexList: UInt16 = 0x0003
    /// Read Controller Information.
    public static let readInfo: UInt16 = 0x0004
    /// Set Powered.
    public static let setPowered: UInt16 = 0x0005
    /// Set Connectable.
    public static let setConnectable: UInt16 = 0x0007
    /// Set Low Energy.
    public static let setLE: UInt16 = 0x000D
    /// Start Discovery.
    public static let startDiscovery: UInt16 = 0x0023
    /// Stop Discovery.
    public static let stopDiscovery: UInt16 = 0x0024
    /// Add Advertising.
    public static let addAdvertising: UInt16 = 0x003E
    /// Remove Advertising.
    public static let removeAdvertising: UInt16 = 0x003F
}

/// Management event codes used here.
public enum ManagementEventCode {
    /// Command Complete.
    public static let commandComplete: UInt16 = 0x0001
    /// Command Status.
    public static let commandStatus: UInt16 = 0x0002
    /// Device Found.
    public static let deviceFound: UInt16 = 0x0012
    /// Discovering.
    public static let discovering: UInt16 = 0x0013
    /// Advertising Removed (instance u8): another socket removed an advertising instance.
    public static let advertisingRemoved: UInt16 = 0x0024
}

/// Management status codes and what each means for the user.
enum ManagementStatus {
    static let busy: UInt8 = 0x0A
    static let notPowered: UInt8 = 0x0F
    static let invalidIndex: UInt8 = 0x11
    static let rfkilled: UInt8 = 0x12
    static let permissionDenied: UInt8 = 0x14

    /// The error for a non-zero status of `operation` on `adapter`.
    static func error(status: UInt8, operation: String, adapter: String) -> BluetoothError {
        switch status {
        case notPowered, rfkilled: .adapterDown(name: adapter)
        case invalidIndex: .noAdapter(name: adapter)
        case permissionDenied: .permissionDenied(operation: operation)
        default: .management(operation: operation, status: status)
        }
    }
}
