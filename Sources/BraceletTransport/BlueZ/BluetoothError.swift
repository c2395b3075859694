import BraceletProtocol
import Glibc

/// Why the Bluetooth layer (HCI scanning, L2CAP connections) could not do what was asked, with
/// what to do about it.
public enum BluetoothError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kernel has no Bluetooth support: `socket(AF_BLUETOOTH, ...)` failed with EAFNOSUPPORT.
    case kernelLacksBluetooth
    /// No Bluetooth adapter is present (or the named one does not exist).
    case noAdapter(name: String?)
    /// The adapter exists but is powered down.
    case adapterDown(name: String)
    /// The operation needs privileges the process lacks (EPERM / EACCES).
    case permissionDenied(operation: String)
    /// The device did not answer: not in range, not advertising, or switched off (EHOSTDOWN,
    /// EHOSTUNREACH, ENODEV).
    case deviceNotFound(address: String)
    /// The device refused the connection (ECONNREFUSED).
    case connectionRefused(address: String)
    /// The connection attempt did not complete in time.
    case connectionTimedOut(address: String, seconds: Double)
    /// An address that is not six colon-separated hex bytes.
    case invalidAddress(String)
    /// Any other system error, with the call that failed and errno.
    case system(operation: String, errno: Int32)
    /// The kernel's management interface refused a command with this status (BlueZ doc/mgmt-api.txt).
    case management(operation: String, status: UInt8)
    /// The user interrupted the operation (SIGINT or SIGTERM).
    case interrupted(operation: String)

    /// Maps an errno from a Bluetooth call to the error a user can act on.
    public static func classify(errno code: Int32, operation: String, address: String? = nil,
                                adapter: String? = nil) -> BluetoothError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: return .kernelLacksBluetooth
        case EPERM, EACCES: return .permissionDenied(operation: operation)
        case ENODEV where address == nil: return .noAdapter(name: adapter)
        case ENETDOWN: return .adapterDown(name: adapter ?? "hci0")
        case EHOSTDOWN, EHOSTUNREACH, ENODEV, ENOENT: return .deviceNotFound(address: address ?? "?")
        case ECONNREFUSED: return .connectionRefused(address: address ?? "?")
        case ETIMEDOUT: return .connectionTimedOut(address: address ?? "?", seconds: 0)
        default: return .system(operation: operation, errno: code)
        }
    }

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .kernelLacksBluetooth:
            return "this system has no Bluetooth support (socket(AF_BLUETOOTH) failed: address family not supported). "
                + "Load the kernel module (`modprobe bluetooth`), run on a machine or VM with a Bluetooth adapter "
                + "(containers need the host's Bluetooth and --net=host), or talk to a simulated bracelet with "
                + "`bracelet simulate --serve unix:PATH` and `--via unix:PATH`."
        case .noAdapter(let name):
            return "no Bluetooth adapter\(name.map { " named \($0)" } ?? "") was found. Plug in an adapter, check "
                + "`hciconfig -a` or `bluetoothctl list`, and pass the right one with --adapter hciN."
        case .adapterDown(let name):
            return "Bluetooth adapter \(name) is powered off. Power it on with `bluetoothctl power on` (when bluetoothd runs) or "
                + "`sudo btmgmt --index \(name.hasPrefix("hci") ? String(name.dropFirst(3)) : name) power on` (and `rfkill unblock bluetooth` if it is blocked)."
        case .permissionDenied(let operation):
            return "permission denied for \(operation): scanning, advertising and adapter control through the kernel's "
                + "management interface need root or the capabilities CAP_NET_RAW and CAP_NET_ADMIN. Run with sudo, or grant them once: "
                + "`sudo setcap 'cap_net_raw,cap_net_admin+eip' $(which bracelet)`."
        case .deviceNotFound(let address):
            return "bracelet \(address) did not answer (host down or out of range). Check that it is charged, within a "
                + "few metres and advertising (`bracelet scan`), and that the address type (public/random) is right."
        case .connectionRefused(let address):
            return "bracelet \(address) refused the connection. It may be connected to another phone or gateway: "
                + "disconnect it there (or switch Bluetooth off on that phone) and retry."
        case let .connectionTimedOut(address, seconds):
            return "connecting to \(address) timed out\(seconds > 0 ? " after \(seconds) s" : ""). Move the bracelet closer, "
                + "check that it still advertises (`bracelet scan`) and retry."
        case .invalidAddress(let text):
            return "'\(text)' is not a Bluetooth address; write six hex bytes separated by colons, e.g. C0:FF:EE:00:11:22."
        case let .management(operation, status):
            return "\(operation) failed: the kernel's Bluetooth management interface answered status 0x\(hexString(status)) "
                + "(\(Self.statusName(status))). \(status == 0x0A ? "Another program (bluetoothd, btmgmt, a scanner) is using the adapter for the same thing; stop it or retry. " : "")"
                + "Check `btmgmt info` and `dmesg`, then retry."
        case .interrupted(let operation):
            return "\(operation) was interrupted (SIGINT or SIGTERM)"
        case let .system(operation, code):
            return "\(operation) failed: \(String(cString: strerror(code))) (errno \(code)). Check `dmesg` and "
                + "`journalctl -u bluetooth` for adapter problems, then retry."
        }
    }

    /// The name BlueZ's doc/mgmt-api.txt gives a management status code.
    static func statusName(_ status: UInt8) -> String {
        let names = ["success", "unknown command", "not connected", "failed", "connect failed", "authentication failed",
                     "not paired", "no resources", "timeout", "already connected", "busy", "rejected", "not supported",
                     "invalid parameters", "disconnected", "not powered", "cancelled", "invalid index", "RF-killed",
                     "already paired", "permission denied"]
        return Int(status) < names.count ? names[Int(status)] : "unknown status"
    }
}
