import BraceletProtocol
import CBlueZ
import Glibc

/// LE scanning through BlueZ's HCI socket (what `hcitool lescan` does): sets scan parameters,
/// enables scanning, reads LE advertising reports until the time is up, and disables scanning.
///
/// Needs root or CAP_NET_RAW + CAP_NET_ADMIN. Every failure is a ``BluetoothError`` that says
/// what to do.
public struct LEScanner: Sendable {
    /// The adapter to use (`hci0`), or `nil` for the first one that is up.
    public var adapter: String?
    /// Active scanning (asks for scan responses, which may carry the name).
    public var active: Bool

    /// A scanner on `adapter` (default: the first adapter).
    public init(adapter: String? = nil, active: Bool = true) {
        self.adapter = adapter
        self.active = active
    }

    /// Checks that the kernel supports Bluetooth at all; throws ``BluetoothError/kernelLacksBluetooth``
    /// (or a permission error) at once otherwise. Cheap: opens and closes one socket.
    public static func checkKernelSupport() throws(BluetoothError) {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if fd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening an HCI socket") }
        close(fd)
    }

    /// Resolves the adapter to its device id, checking that it exists and is up.
    public func deviceID() throws(BluetoothError) -> Int32 {
        try Self.checkKernelSupport()
        let id: Int32
        if let adapter {
            id = hci_devid(adapter)
            if id < 0 { throw .noAdapter(name: adapter) }
        } else {
            id = hci_get_route(nil)
            if id < 0 {
                let code = errno
                if code == EAFNOSUPPORT { throw .kernelLacksBluetooth }
                throw .noAdapter(name: nil)
            }
        }
        let up = cbluez_adapter_is_up(id)
        if up < 0 { throw BluetoothError.classify(errno: errno, operation: "reading adapter info", adapter: adapter) }
        if up == 0 { throw .adapterDown(name: adapter ?? "hci\(id)") }
        return id
    }

    /// Scans for `seconds` and returns every bracelet heard (strongest first). Other devices are
    /// ignored; `onReport` sees every decoded report as it arrives (e.g. to print live).
    public func scan(seconds: Double, onReport: ((LEAdvertisingReport) -> Void)? = nil) throws(BluetoothError) -> [DiscoveredBracelet] {
        let id = try deviceID()
        let dd = hci_open_dev(id)
        if dd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening adapter hci\(id)", adapter: adapter) }
        defer { close(dd) }
        // 10 ms interval and window (units of 0.625 ms), own address public, accept all.
        if hci_le_set_scan_parameters(dd, active ? 0x01 : 0x00, cbluez_htobs(0x0010), cbluez_htobs(0x0010), 0x00, 0x00, 1_000) < 0 {
            throw BluetoothError.classify(errno: errno, operation: "setting LE scan parameters", adapter: adapter)
        }
        if hci_le_set_scan_enable(dd, 0x01, 0x00, 1_000) < 0 {
            throw BluetoothError.classify(errno: errno, operation: "enabling LE scan", adapter: adapter)
        }
        defer { _ = hci_le_set_scan_enable(dd, 0x00, 0x00, 1_000) }
        if cbluez_filter_le_meta(dd) < 0 {
            throw BluetoothError.classify(errno: errno, operation: "setting the HCI event filter", adapter: adapter)
        }
        var found: [BluetoothAddress: DiscoveredBracelet] = [:]
        var names: [BluetoothAddress: String] = [:]
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE) + 4)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { break }
            var pfd = pollfd(fd: dd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(max(1, remaining.milliseconds)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw BluetoothError.classify(errno: errno, operation: "waiting for advertising reports")
            }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(dd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw BluetoothError.classify(errno: errno, operation: "reading advertising reports")
            }
            guard let reports = try? LEAdvertisingReport.parse(hciEvent: Array(buffer[0..<n])) else { continue }
            for report in reports {
                onReport?(report)
                if let advertised = BraceletAdvertisement(advertisingData: report.data)?.localName ?? localName(in: report.data) {
                    names[report.address] = advertised
                }
                if let bracelet = report.bracelet {
                    var entry = found[report.address]
                        ?? DiscoveredBracelet(address: report.address, addressType: report.addressType, rssi: report.rssi,
                                              advertisement: bracelet, name: nil)
                    entry.advertisement = bracelet
                    if let rssi = report.rssi { entry.rssi = max(entry.rssi ?? rssi, rssi) }
                    found[report.address] = entry
                }
            }
        }
        return found.values.map { entry in
            var e = entry
            e.name = e.advertisement.localName ?? names[e.address]
            return e
        }.sorted { ($0.rssi ?? -200) > ($1.rssi ?? -200) }
    }

    private func localName(in data: [UInt8]) -> String? {
        var i = 0
        while i + 1 < data.count {
            let length = Int(data[i])
            guard length > 0, i + 1 + length <= data.count else { return nil }
            if data[i + 1] == 0x08 || data[i + 1] == 0x09 {
                return String(decoding: data[(i + 2)..<(i + 1 + length)], as: UTF8.self)
            }
            i += 1 + length
        }
        return nil
    }
}

extension Duration {
    /// Whole milliseconds, rounded up, saturating at Int32.max.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(min(ms, Int64(Int32.max)))
    }
}
