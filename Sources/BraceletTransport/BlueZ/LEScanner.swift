import BraceletProtocol
import CBlueZ
import Glibc

/// LE discovery through the kernel's management interface (Start Discovery, Device Found events),
/// the way bluetoothd discovers: it works on an adapter bluetoothd owns, and when another program is
/// already discovering on it, it listens to the Device Found events of that discovery instead.
///
/// Needs root or CAP_NET_ADMIN to start a discovery. Every failure is a ``BluetoothError`` that says
/// what to do: no Bluetooth in the kernel, no adapter, adapter powered off, no permission.
public struct LEScanner: Sendable {
    /// The adapter to use (`hci0`), or `nil` for the first one the kernel lists.
    public var adapter: String?
    /// Stops the scan early when it returns true (e.g. after SIGINT); checked at least every 100 ms.
    public var shouldStop: @Sendable () -> Bool

    /// A scanner on `adapter` (default: the first adapter).
    public init(adapter: String? = nil, shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.adapter = adapter
        self.shouldStop = shouldStop
    }

    /// Checks that the kernel supports Bluetooth at all; throws ``BluetoothError/kernelLacksBluetooth``
    /// (or a permission error) at once otherwise. Cheap: opens and closes one socket.
    public static func checkKernelSupport() throws(BluetoothError) {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if fd < 0 { throw BluetoothError.classify(errno: errno, operation: "opening an HCI socket") }
        close(fd)
    }

    /// LE address types to discover: public and random (mgmt-api.txt Start Discovery, bits 1 and 2).
    private static let leAddressTypes: UInt8 = 0x06

    /// Scans for `seconds` and returns every bracelet heard (strongest first). Other devices are
    /// ignored; `untilReport` sees every decoded report as it arrives and ends the scan early once it
    /// returns true; `until` ends it early once it returns true for a bracelet heard (e.g. the one
    /// being looked for).
    public func scan(seconds: Double, untilReport: ((LEAdvertisingReport) -> Bool)? = nil,
                     until: ((DiscoveredBracelet) -> Bool)? = nil) throws(BluetoothError) -> [DiscoveredBracelet] {
        try Self.checkKernelSupport()
        let socket = try ManagementSocket()
        let adapter = try ManagementAdapter.resolve(self.adapter, on: socket)
        _ = try adapter.requirePoweredLowEnergy(on: socket)
        var ownDiscovery = try startDiscovery(adapter, on: socket)
        defer { if ownDiscovery { _ = try? stopDiscovery(adapter, on: socket) } }
        // Discovering events announcing the end of a discovery this scan stopped itself (to restart it).
        var ownStops = 0
        var found: [BluetoothAddress: DiscoveredBracelet] = [:]
        var names: [BluetoothAddress: String] = [:]
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        var lastStart = ContinuousClock.now
        scanning: while !shouldStop() {
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { break }
            // Another program's discovery may end (or have been stopping) at any time: try ours again each second.
            if !ownDiscovery, lastStart.duration(to: .now) >= .seconds(1) {
                lastStart = .now
                ownDiscovery = try startDiscovery(adapter, on: socket)
            } else if ownDiscovery, lastStart.duration(to: .now) >= Self.restartInterval {
                lastStart = .now
                // It may have just ended on its own (its Discovering event then restarts it instead).
                if (try? stopDiscovery(adapter, on: socket)) != nil { ownStops += 1 }
                ownDiscovery = try startDiscovery(adapter, on: socket)
            }
            guard let event = try socket.nextEvent(timeout: min(remaining, .milliseconds(100))), event.index == adapter.index else { continue }
            switch event.code {
            case ManagementEventCode.discovering:
                // The kernel ends an LE discovery after about 10 s; start another while time remains.
                if event.parameters.count >= 2, event.parameters[1] == 0 {
                    if ownStops > 0 { ownStops -= 1; continue }
                    lastStart = .now
                    ownDiscovery = try startDiscovery(adapter, on: socket)
                }
            case ManagementEventCode.deviceFound:
                guard let report = try? LEAdvertisingReport.parse(deviceFound: event.parameters) else { continue }
                if let untilReport, untilReport(report) { break scanning }
                if let name = localName(in: report.data) { names[report.address] = name }
                guard let bracelet = report.bracelet else { continue }
                var entry = found[report.address]
                    ?? DiscoveredBracelet(address: report.address, addressType: report.addressType, rssi: report.rssi,
                                          advertisement: bracelet, name: nil)
                entry.advertisement = bracelet
                if let rssi = report.rssi { entry.rssi = max(entry.rssi ?? rssi, rssi) }
                found[report.address] = entry
                if let until, until(entry) { break scanning }
            default:
                continue
            }
        }
        return found.values.map { entry in
            var e = entry
            e.name = e.advertisement.localName ?? names[e.address]
            return e
        }.sorted { ($0.rssi ?? -200) > ($1.rssi ?? -200) }
    }

    /// The address type `address` advertises with, from its first report heard within `seconds`
    /// (any advertiser: a bracelet or a standard sensor); `nil` when it was not heard. Nothing else
    /// of the advertisement is needed: what link the device needs is learned from its answers.
    public func addressType(of address: BluetoothAddress, seconds: Double) throws(BluetoothError) -> LEAddressType? {
        var heard: LEAddressType?
        _ = try scan(seconds: seconds, untilReport: { report in
            guard report.address == address else { return false }
            heard = report.addressType
            return true
        })
        return heard
    }

    /// How often a scan restarts its own discovery. A controller reports an advertiser once per scan
    /// start when it filters duplicates, and the kernel drops reports that arrive before it counts
    /// the discovery as running: an emulated controller (btvirt) sends its reports only at that
    /// moment, so a single discovery can hear nothing. Each restart is a new chance, on any controller.
    static let restartInterval: Duration = .seconds(2)

    private func stopDiscovery(_ adapter: ManagementAdapter, on socket: ManagementSocket) throws(BluetoothError) {
        try socket.command(ManagementOpcode.stopDiscovery, index: adapter.index, parameters: [Self.leAddressTypes],
                           operation: "stopping discovery on \(adapter.name)", adapter: adapter.name)
    }

    /// Starts an LE discovery; false when another program's discovery is already running on the
    /// adapter (its Device Found events reach every management socket, so the scan still hears).
    private func startDiscovery(_ adapter: ManagementAdapter, on socket: ManagementSocket) throws(BluetoothError) -> Bool {
        do throws(BluetoothError) {
            try socket.command(ManagementOpcode.startDiscovery, index: adapter.index, parameters: [Self.leAddressTypes],
                               operation: "starting LE discovery on \(adapter.name)", adapter: adapter.name)
            return true
        } catch {
            if case .management(_, let status) = error, status == ManagementStatus.busy { return false }
            throw error
        }
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
