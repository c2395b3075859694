import BraceletIngest
import BraceletStore
import BraceletTransport

/// What the gateway does, for the command's log lines (the library prints nothing).
public enum GatewayEvent: Sendable, CustomStringConvertible {
    /// The enrolments were read again (count).
    case reloaded(enrolments: Int)
    /// A sync of `endpoint` started.
    case syncStarted(endpoint: String)
    /// A sync ended: files committed, bytes received, whether it completed, the error when not, and
    /// how long it held its link slot (real seconds, from the connect to the end of its bookkeeping:
    /// what limits how many bracelets one adapter keeps up with).
    case syncEnded(endpoint: String, serial: String?, files: Int, bytes: Int, completed: Bool, error: String?, seconds: Double)
    /// A session turned out to be a standard sensor's (`sensor`: what it said about itself), kept
    /// as `device` while its link lasts: a stream with no end, where a bracelet's sync is work
    /// that finishes (its progress is not shown).
    case sensorStreaming(endpoint: String, device: String, sensor: StandardSensorInfo)
    /// A standard sensor's session ended (its link dropped, or the gateway stopped): the seconds
    /// with a value it kept, why it ended, how long it lasted (real seconds).
    case sensorSessionEnded(endpoint: String, serial: String?, samples: Int, error: String?, seconds: Double)
    /// `endpoint` failed `failures` times in a row; it is tried again in `retryInSeconds` (gateway clock).
    case backingOff(endpoint: String, failures: Int, retryInSeconds: Int64)
    /// An operator event was written to the outbox.
    case operatorEvent(device: String, name: String, detail: String)
    /// A radio bracelet was heard advertising.
    case heard(endpoint: String)
    /// `endpoint`'s link was secured to `level`, more than its enrolment required: the enrolment
    /// requires it from now on.
    case linkSecurityLearned(endpoint: String, level: EnrolledLinkSecurity)
    /// Something went wrong that does not stop the gateway (a store write, discovery).
    case problem(String)
    /// No bracelet is enrolled in `database`: said when the gateway finds none, and again every
    /// ``Gateway/Settings/emptyReminderSeconds`` while none is, so that a service left with nothing
    /// to do says how to give it work.
    case nothingEnrolled(database: String)
    /// Where the sync of `endpoint` stands (a backfill's transfer and recompute), as it goes.
    case progress(endpoint: String, WorkProgress)

    /// One line for a log.
    public var description: String {
        switch self {
        case .reloaded(let n): "\(n) enrolled bracelet(s)"
        case .syncStarted(let endpoint): "\(endpoint): syncing"
        case let .syncEnded(endpoint, serial, files, bytes, completed, error, seconds):
            "\(endpoint)\(serial.map { " (\($0))" } ?? ""): " + (completed ? "synced: \(files) file(s), \(bytes) bytes in \(String(format: "%.1f", seconds)) s"
                : "sync failed after \(files) file(s) and \(String(format: "%.1f", seconds)) s: \(error ?? "stopped")")
        case let .sensorStreaming(endpoint, device, sensor):
            "\(endpoint) (\(device)): \(sensor); kept while it streams"
        case let .sensorSessionEnded(endpoint, serial, samples, error, seconds):
            "\(endpoint)\(serial.map { " (\($0))" } ?? ""): sensor session ended after \(String(format: "%.1f", seconds)) s, "
                + "\(samples) second(s) with a value kept" + (error.map { ": \($0)" } ?? "")
        case let .backingOff(endpoint, failures, seconds): "\(endpoint): \(failures) failure(s) in a row; next try in \(seconds) s"
        case let .operatorEvent(device, name, detail): "EVENT \(name) \(device): \(detail)"
        case .heard(let endpoint): "\(endpoint): heard"
        case let .linkSecurityLearned(endpoint, level):
            "\(endpoint): its link was secured \(level == .authenticated ? "with authentication" : "with encryption"); "
                + "its enrolment requires an \(level.rawValue) link from now on (a device at the address that offers less is refused)"
        case .problem(let text): text
        case .nothingEnrolled(let database): "no bracelet is enrolled in \(database), so there is nothing to sync"
        case let .progress(endpoint, progress): "\(endpoint): \(progress)"
        }
    }

    /// Whether the line is a warning rather than information.
    public var isWarning: Bool {
        switch self {
        case .operatorEvent, .problem, .backingOff, .nothingEnrolled: true
        case .syncEnded(_, _, _, _, let completed, _, _): !completed
        case .sensorSessionEnded(_, _, let samples, _, _): samples == 0
        default: false
        }
    }
}
