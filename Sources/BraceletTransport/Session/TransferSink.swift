import BraceletProtocol

/// One complete file received from a bracelet, verified (header, length and CRC-32 for metrics and
/// beats), ready to be stored.
public struct TransferredFile: Sendable, Hashable {
    /// The file kind.
    public var kind: FileKind
    /// The exact bytes of the sealed file (header, records, CRC-32; logs: text).
    public var bytes: [UInt8]
    /// The bracelet's serial number (Device Information 0x2A25).
    public var serial: String
    /// The bracelet's model (from Device Information 0x2A24).
    public var model: DeviceModel
    /// Unix time (UTC) at which the transfer completed.
    public var receivedAt: Int64

    /// Creates a file record.
    public init(kind: FileKind, bytes: [UInt8], serial: String, model: DeviceModel, receivedAt: Int64) {
        self.kind = kind
        self.bytes = bytes
        self.serial = serial
        self.model = model
        self.receivedAt = receivedAt
    }
}

/// Where a ``BraceletSession`` saves what it received. The session calls ``commit(_:)`` exactly once
/// per complete verified file and erases the file on the bracelet only after the call returned;
/// a thrown error stops the session without erasing. Once every file kind is transferred it calls
/// ``syncEnded()`` once.
///
/// Both calls run on the session's writer thread, one at a time, while the session keeps reading
/// the link: they may block on disk I/O, and must not call back into the session.
///
/// An implementation MUST make the file durable (one transaction) before ``commit(_:)`` returns,
/// and SHOULD store idempotently: the same file can arrive twice when the link drops between commit
/// and erase. Work that follows from the files rather than storing them (summaries of the days they
/// touch) belongs in ``syncEnded()``, once per sync; what it needs to know must itself be durable at
/// commit, since a process can end between a commit and the end of the sync.
public protocol TransferSink: Sendable {
    /// Stores one complete, verified file durably.
    func commit(_ file: TransferredFile) throws
    /// Does the work the commits of this sync deferred; the default does nothing. A thrown error
    /// ends the session with ``SessionError/sinkFinishFailed(reason:)`` (everything stays committed).
    func syncEnded() throws
}

extension TransferSink {
    /// Nothing deferred: nothing to do.
    public func syncEnded() throws {}
}

/// Opens a fresh sequenced-packet link to a bracelet: BlueZ L2CAP or a Unix socket to a simulator.
public protocol BraceletConnector {
    /// Connects; a thrown ``BluetoothError`` that cannot improve with retrying (no Bluetooth,
    /// no adapter, adapter down, no permission) ends the session at once.
    func connect() throws -> SeqPacketSocket
    /// A short description for messages (`unix:/tmp/b.sock`, `C0:FF:EE:00:11:22`).
    var label: String { get }
    /// Raises the security of the link under `socket` (one this connector made) to at least `level`
    /// because the peer refused a request on it (``SecurityUpgrade``); returns the link's security
    /// once it is there, or `nil` when this connector does not raise links (a Unix socket, a link
    /// whose security the user fixed). Throws what the pairing ran into.
    func raiseSecurity(of socket: SeqPacketSocket, to level: LESecurityLevel) throws -> LinkSecurity?
}

extension BraceletConnector {
    /// Connectors raise no link unless they say otherwise.
    public func raiseSecurity(of socket: SeqPacketSocket, to level: LESecurityLevel) throws -> LinkSecurity? { nil }
}

/// Connects to a simulated bracelet (`bracelet simulate --serve unix:PATH`).
public struct UnixSocketConnector: BraceletConnector, Sendable {
    /// The socket path.
    public var path: String
    /// A connector for `path`.
    public init(path: String) { self.path = path }
    /// Connects.
    public func connect() throws -> SeqPacketSocket { try SeqPacketSocket.connect(unixPath: path) }
    /// `unix:PATH`.
    public var label: String { "unix:" + path }
}

extension L2CAPConnector: BraceletConnector {
    /// The device address.
    public var label: String { address.description }
}
