/// Why `listen` could not become bluetoothd's pairing agent. Each says what to do.
public enum BluezAgentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libdbus-1 could not be loaded.
    case libraryMissing(reason: String)
    /// The system bus refused the connection or is not there (D-Bus error name and message).
    case systemBus(name: String, message: String)
    /// bluetoothd answered `method` with an error (or no one answered).
    case refused(method: String, name: String, message: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .libraryMissing(let reason):
            return "libdbus-1 cannot be loaded (\(reason)); install the libdbus-1-3 package"
        case let .systemBus(name, message):
            if name.hasSuffix(".AccessDenied") {
                return "the system bus refused the connection (\(message)): run as root or allow this user in /etc/dbus-1/system.d"
            }
            return "cannot connect to the system bus (\(name): \(message)): is dbus-daemon running?"
        case let .refused(method, name, message):
            switch name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                return "bluetoothd is not on the system bus (\(method): \(message)): it stopped meanwhile; start it again or retry"
            case "org.freedesktop.DBus.Error.AccessDenied":
                return "the system bus does not let this user call bluetoothd's \(method) (\(message)): run as root, or allow the user in "
                    + "/etc/dbus-1/system.d/bluetooth.conf"
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
                return "bluetoothd did not answer \(method) (\(message)): it is busy or hung; restart it and retry"
            default:
                return "bluetoothd refused \(method) (\(name): \(message))"
            }
        }
    }
}
