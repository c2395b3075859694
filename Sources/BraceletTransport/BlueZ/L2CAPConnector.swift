import CBlueZ
import Glibc

/// Opens the ATT channel (L2CAP fixed channel, CID 4) to an LE device through BlueZ, as
/// btgatt-client does: bind to the adapter on CID 4, set the security level, connect with a timeout
/// (non-blocking connect + poll).
public struct L2CAPConnector: Sendable {
    /// The device to connect to.
    public var address: BluetoothAddress
    /// Its address type.
    public var addressType: LEAddressType
    /// The local adapter (`hci0`), or `nil` for any.
    public var adapter: String?
    /// The security level to request; `nil` leaves BlueZ's default (low).
    public var security: LESecurityLevel?
    /// How long a connection attempt may take.
    public var timeout: Duration
    /// Ends a connection attempt early (``BluetoothError/interrupted(operation:)``) when it returns
    /// true, e.g. after SIGINT or SIGTERM; checked every 100 ms while connecting.
    public var shouldStop: @Sendable () -> Bool

    /// Describes a connection to `address`.
    public init(address: BluetoothAddress, addressType: LEAddressType = .random, adapter: String? = nil,
                security: LESecurityLevel? = nil, timeout: Duration = .seconds(10),
                shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.address = address
        self.addressType = addressType
        self.adapter = adapter
        self.security = security
        self.timeout = timeout
        self.shouldStop = shouldStop
    }

    /// Connects; returns the socket (one ATT PDU per frame). Throws a ``BluetoothError`` saying what
    /// to do when the kernel lacks Bluetooth, the adapter is missing or down, permission is missing,
    /// or the device does not answer, refuses or times out.
    public func connect() throws(BluetoothError) -> SeqPacketSocket {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_L2CAP)
        if fd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening an L2CAP socket", adapter: adapter) }
        let socket = SeqPacketSocket(adopting: fd)
        var local = cbluez_bdaddr_any()
        if let adapter {
            let id = hci_devid(adapter)
            if id < 0 {
                // libbluetooth finds adapters by name only while they are up: one that exists but is
                // down (bluetoothd powers adapters off when it stops) must not read as missing.
                if access("/sys/class/bluetooth/\(adapter)", F_OK) == 0 { throw .adapterDown(name: adapter) }
                throw .noAdapter(name: adapter)
            }
            let up = cbluez_adapter_is_up(id)
            if up == 0 { throw .adapterDown(name: adapter) }
            if hci_devba(id, &local) < 0 { throw BluetoothError.classify(errno: errno, operation: "reading \(adapter)'s address", adapter: adapter) }
        }
        var localAddress = cbluez_l2_att_address(local, UInt8(BDADDR_LE_PUBLIC))
        if cbluez_bind_l2(fd, &localAddress) < 0 {
            throw BluetoothError.classify(errno: errno, operation: "binding the ATT channel", adapter: adapter)
        }
        if let security, cbluez_set_security(fd, security.rawValue) < 0 {
            throw BluetoothError.classify(errno: errno, operation: "setting BT_SECURITY", adapter: adapter)
        }
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let text = address.description
        var remote = cbluez_l2_att_address(address.wireBytes.withUnsafeBufferPointer { cbluez_bdaddr_make($0.baseAddress) },
                                           addressType == .public ? UInt8(BDADDR_LE_PUBLIC) : UInt8(BDADDR_LE_RANDOM))
        if cbluez_connect_l2(fd, &remote) < 0 {
            let code = errno
            guard code == EINPROGRESS || code == EAGAIN else {
                throw BluetoothError.classify(errno: code, operation: "connecting to \(text)", address: text, adapter: adapter)
            }
            // Wait in short slices so that SIGINT/SIGTERM ends a pending connect at once.
            let deadline = ContinuousClock.now + timeout
            while true {
                if shouldStop() { throw .interrupted(operation: "connecting to \(text)") }
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero {
                    let (s, atto) = timeout.components
                    throw .connectionTimedOut(address: text, seconds: Double(s) + Double(atto) / 1e18)
                }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&pfd, 1, Int32(min(100, max(1, remaining.milliseconds))))
                if ready > 0 { break }
                if ready < 0 && errno != EINTR { throw BluetoothError.classify(errno: errno, operation: "waiting to connect", address: text) }
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { throw BluetoothError.classify(errno: error, operation: "connecting to \(text)", address: text, adapter: adapter) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        return socket
    }
}
