import BraceletProtocol
import CBlueZ
import Glibc

/// A local adapter acting as an LE peripheral: powered, connectable and advertising a chosen payload
/// through the kernel's management interface (as bluetoothd does), accepting LE connections on the
/// ATT fixed channel (L2CAP CID 4, like `l2test -r -J 4`). Each accepted link carries one ATT PDU
/// per frame, exactly like a ``SeqPacketListener`` client.
///
/// Needs root or CAP_NET_ADMIN (adapter settings). Not thread-safe: one thread accepts.
public final class LEPeripheral: SeqPacketAcceptor {
    /// The adapter.
    public let adapter: ManagementAdapter
    /// The adapter's public address (what a central connects to, address type public).
    public let address: BluetoothAddress
    /// The peer of the most recently accepted link.
    public private(set) var lastPeer: (address: BluetoothAddress, type: LEAddressType)?
    private let management: ManagementSocket
    private let advertisingData: [UInt8]
    private let scanResponse: [UInt8]
    private var listening: Int32 = -1
    /// Advertising instance used (1: the first of the controller's instances).
    private static let instance: UInt8 = 1
    /// Called (from the accepting thread) each time another program had removed the advertisement
    /// and it was added again.
    public var onAdvertisingRestored: (() -> Void)?

    /// Powers `adapterName` (`hci1`), enables LE and connectable mode, starts listening on the ATT
    /// channel and advertises `advertisingData` (AD structures, at most 31 bytes, including the Flags
    /// AD: the kernel adds none) with `scanResponse` as the scan response.
    public init(adapter adapterName: String, advertisingData: [UInt8], scanResponse: [UInt8] = []) throws(BluetoothError) {
        try LEScanner.checkKernelSupport()
        management = try ManagementSocket()
        adapter = try ManagementAdapter.resolve(adapterName, on: management)
        self.advertisingData = advertisingData
        self.scanResponse = scanResponse
        let before = try adapter.information(on: management)
        guard before.supportsLowEnergy else {
            throw .management(operation: "\(adapter.name) cannot do Bluetooth Low Energy; use an LE adapter", status: 0x0C)
        }
        if !before.isLowEnergyEnabled { try adapter.set(ManagementOpcode.setLE, true, operation: "enabling LE on \(adapter.name)", on: management) }
        try adapter.set(ManagementOpcode.setConnectable, true, operation: "making \(adapter.name) connectable", on: management)
        if !before.isPowered { try adapter.set(ManagementOpcode.setPowered, true, operation: "powering \(adapter.name)", on: management) }
        address = before.address
        try listen()
        try advertise()
    }

    deinit { close() }

    private func listen() throws(BluetoothError) {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_L2CAP)
        if fd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening an L2CAP socket", adapter: adapter.name) }
        var local = cbluez_l2_att_address(address.wireBytes.withUnsafeBufferPointer { cbluez_bdaddr_make($0.baseAddress) },
                                          UInt8(BDADDR_LE_PUBLIC))
        if cbluez_bind_l2(fd, &local) < 0 || Glibc.listen(fd, 1) < 0 {
            let code = errno
            Glibc.close(fd)
            throw BluetoothError.classify(errno: code, operation: "listening on the ATT channel of \(adapter.name)", adapter: adapter.name)
        }
        listening = fd
    }

    /// Adds (or replaces) the advertising instance: connectable, the payload as given.
    public func advertise() throws(BluetoothError) {
        var parameters: [UInt8] = [Self.instance]
        parameters.appendLittleEndian(UInt32(0x0000_0001))  // flags: switch into connectable mode
        parameters.appendLittleEndian(UInt16(0))  // duration: default
        parameters.appendLittleEndian(UInt16(0))  // timeout: none
        parameters += [UInt8(advertisingData.count), UInt8(scanResponse.count)]
        parameters += advertisingData + scanResponse
        try management.command(ManagementOpcode.addAdvertising, index: adapter.index, parameters: parameters,
                               operation: "starting advertising on \(adapter.name)", adapter: adapter.name)
    }

    /// Waits up to `timeout` for a central to connect on the ATT channel. Before waiting, advertises
    /// again when needed: after a link (a connection ends legacy advertising; the kernel usually
    /// restarts it, this makes sure), after another program removed the advertisement, and when
    /// another adapter of this machine started a discovery.
    public func accept(timeout: Duration) throws(LinkError) -> Int32? {
        guard listening >= 0 else { throw .closed }
        switch advertisingNews() {
        case .removed:
            // bluetoothd removes every advertising instance of an adapter when it starts managing it
            // (its advertising manager resets them), which silences a peripheral started before it.
            needsAdvertising = true
            if (try? advertise()) != nil { needsAdvertising = false; onAdvertisingRestored?() }
        case .scannerStarted:
            // Another adapter of this machine started discovering. A controller that reports each
            // advertiser once per scan start (btvirt's emulated ones do, at once) can report this
            // one before the kernel counts that discovery as running, and the kernel then drops it:
            // advertising again (off, then on) makes the controller report it to the running discovery.
            _ = try? management.command(ManagementOpcode.removeAdvertising, index: adapter.index, parameters: [Self.instance],
                                        operation: "restarting the advertisement", adapter: adapter.name)
            needsAdvertising = true
        case nil:
            break
        }
        if needsAdvertising {
            needsAdvertising = (try? advertise()) == nil
        }
        var pfd = pollfd(fd: listening, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, Int32(max(0, timeout.milliseconds)))
        if ready < 0 { if errno == EINTR { return nil }; throw .system(operation: "waiting for an LE connection", errno: errno) }
        if ready == 0 { return nil }
        var peer = [UInt8](repeating: 0, count: 6)
        var type: UInt8 = 0
        let fd = peer.withUnsafeMutableBufferPointer { cbluez_accept_l2(listening, $0.baseAddress, &type) }
        if fd < 0 {
            if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { return nil }
            throw .system(operation: "accepting an LE connection on \(adapter.name)", errno: errno)
        }
        if let address = BluetoothAddress(wireBytes: peer) {
            lastPeer = (address, type == UInt8(BDADDR_LE_PUBLIC) ? .public : .random)
        }
        needsAdvertising = true
        return fd
    }

    private var needsAdvertising = false

    private enum AdvertisingNews { case removed, scannerStarted }

    /// What the management events that arrived since the last look mean for the advertisement:
    /// another program removed it, or another adapter started a discovery (`nil`: neither).
    private func advertisingNews() -> AdvertisingNews? {
        var news: AdvertisingNews?
        while let event = try? management.waitingEvent() {
            if event.code == ManagementEventCode.advertisingRemoved, event.index == adapter.index,
               event.parameters.first == Self.instance {
                news = .removed
            } else if event.code == ManagementEventCode.discovering, event.index != adapter.index,
                      event.parameters.count >= 2, event.parameters[1] == 1, news == nil {
                news = .scannerStarted
            }
        }
        return news
    }

    /// Stops advertising and listening. Safe to call twice.
    public func close() {
        if listening >= 0 {
            Glibc.close(listening)
            listening = -1
            _ = try? management.command(ManagementOpcode.removeAdvertising, index: adapter.index, parameters: [Self.instance],
                                        operation: "removing the advertising instance", adapter: adapter.name)
        }
    }
}
