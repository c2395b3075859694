import BraceletDecoder
import BraceletStore

/// A study at a glance, what `bracelet report --study` draws: one row per participant device with
/// one ``StudyDay`` per local date of the page, whether the last seven days score, what the gateway
/// knows of the device, and each sink's deliveries. Made from a gateway's database
/// (`StudyOverview.gateway`, BraceletGateway) or from the fleet database (`FleetReader.studyOverview`,
/// BraceletFleet), drawn by `StudyPage` and `StudyCSV` (BraceletExport).
public struct StudyOverview: Sendable, Hashable {
    /// First date of the page.
    public var from: LocalDate
    /// Last date of the page.
    public var to: LocalDate
    /// When it was made (Unix seconds): what "over" and "ago" are measured against.
    public var now: Int64
    /// Where it was read, e.g. `gateway database g.db` (no password).
    public var source: String
    /// One row per participant device, by user id then device.
    public var participants: [StudyParticipant]
    /// Deliveries and state of each sink: the gateway's own, or from the fleet database each
    /// gateway's as it last reported them (``StudySink/gateway``, ``StudySink/reportedAt``).
    public var sinks: [StudySink]
    /// What it was read from.
    public var origin: Origin

    /// Where an overview was read.
    public enum Origin: String, Sendable, Hashable {
        /// A gateway's database: its enrolments, outbox and delivery log.
        case gateway
        /// The fleet database: what gateways delivered, and the status each last reported.
        case fleet
    }

    /// An overview.
    public init(from: LocalDate, to: LocalDate, now: Int64, source: String, participants: [StudyParticipant], sinks: [StudySink],
                origin: Origin = .gateway) {
        self.from = from
        self.to = to
        self.now = now
        self.source = source
        self.participants = participants
        self.sinks = sinks
        self.origin = origin
    }

    /// The dates of the page, oldest first.
    public var dates: [LocalDate] { Self.dates(from: from, to: to) }

    /// The dates from `from` to `to`, oldest first (none when `from` is later).
    public static func dates(from: LocalDate, to: LocalDate) -> [LocalDate] {
        from > to ? [] : (from.dayNumber...to.dayNumber).map(LocalDate.init(dayNumber:))
    }

    /// Participants with nothing to look at.
    public var onTrack: Int { participants.count - needingAttention }

    /// Participants with at least one reason to look at them (``StudyParticipant/attention``).
    public var needingAttention: Int { participants.filter { !$0.attention.isEmpty }.count }
}

/// One participant device on the study page.
public struct StudyParticipant: Sendable, Hashable {
    /// The study participant id, when assigned.
    public var user: String?
    /// The device serial (a gateway endpoint before its first sync read the serial).
    public var device: String
    /// The device model (`V1`, `V2`, a sensor's), when the source knows it.
    public var model: String?
    /// One day per date of the page, oldest first.
    public var days: [StudyDay]
    /// Whether the last seven days that are over score.
    public var scoring: StudyScoring
    /// What the gateway knows of the device; `nil` when it is not enrolled at the gateway read, or
    /// (from the fleet database) when no gateway reported its status.
    public var health: StudyDeviceHealth?
    /// When a gateway last delivered for the device (Unix ms), from the fleet database.
    public var lastDeliveryAt: Int64?

    /// A row.
    public init(user: String?, device: String, model: String?, days: [StudyDay], scoring: StudyScoring,
                health: StudyDeviceHealth? = nil, lastDeliveryAt: Int64? = nil) {
        self.user = user
        self.device = device
        self.model = model
        self.days = days
        self.scoring = scoring
        self.health = health
        self.lastDeliveryAt = lastDeliveryAt
    }

    /// Why someone should look at this participant, most urgent first; empty when on track: each
    /// open operator event, no completed sync yet, the last seven days not scorable, and the latest
    /// day that is over missing or incomplete.
    public var attention: [String] {
        var reasons = health?.openEvents.map { StudyDeviceHealth.label(ofEvent: $0) } ?? []
        if let health, health.lastSyncAt == nil { reasons.append("never synced") }
        if !scoring.scorable { reasons.append("last 7 days not scorable") }
        if let latest = days.last(where: { $0.state != .notOver }) {
            switch latest.state {
            case .missing: reasons.append("no data on \(latest.date)")
            case .incomplete: reasons.append("\(latest.date) incomplete")
            case .complete, .notOver: break
            }
        }
        return reasons
    }
}

/// What a gateway knows of one enrolled device (`gateway status`), for the study page.
public struct StudyDeviceHealth: Sendable, Hashable {
    /// The enrolment's state (`synced`, `failing`, `out_of_range`, ...).
    public var state: String
    /// Last advertisement heard or connection made (Unix ms).
    public var lastHeardAt: Int64?
    /// Last completed sync (Unix ms).
    public var lastSyncAt: Int64?
    /// Battery percent at the last connection.
    public var battery: Int?
    /// Battery change over the last 24 hours of the device's record, percentage points (a charge
    /// in between counts too); `nil` when the record has no battery a day apart.
    public var batteryChange: Int?
    /// Bytes waiting on the device at its last connection.
    public var backlogBytes: Int?
    /// The operator events whose condition still holds (`not_heard`, `not_worn`, `battery_low`,
    /// `sync_failing`, `not_sending`, `link_refused`), by name, sorted.
    public var openEvents: [String]

    /// A health record.
    public init(state: String, lastHeardAt: Int64?, lastSyncAt: Int64?, battery: Int?, batteryChange: Int?, backlogBytes: Int?,
                openEvents: [String]) {
        self.state = state
        self.lastHeardAt = lastHeardAt
        self.lastSyncAt = lastSyncAt
        self.battery = battery
        self.batteryChange = batteryChange
        self.backlogBytes = backlogBytes
        self.openEvents = openEvents
    }

    /// The words a coordinator reads for an operator event: `silent`, `not worn`, `battery low`,
    /// `sync failing` (another name as it is, underscores as spaces).
    public static func label(ofEvent name: String) -> String {
        name == "not_heard" ? "silent" : name.replacingUnderscores
    }
}

/// Deliveries of one sink and how it is doing, as `gateway status` shows them.
public struct StudySink: Sendable, Hashable {
    /// The sink's name as the delivery log records it.
    public var name: String
    /// Entries pending (one outbox for every sink).
    public var pending: Int
    /// Entries this sink confirmed.
    public var delivered: Int
    /// Entries this sink refused for good.
    public var dead: Int
    /// Its state after its last attempt (`ok`, `failing`, `paused`); `nil` before any attempt.
    public var health: SinkHealth?
    /// From the fleet database: the gateway (its login role) whose sink this is.
    public var gateway: String?
    /// From the fleet database: when that gateway read these values (Unix ms, its clock).
    public var reportedAt: Int64?

    /// A sink's counts and state.
    public init(name: String, pending: Int, delivered: Int, dead: Int, health: SinkHealth? = nil, gateway: String? = nil,
                reportedAt: Int64? = nil) {
        self.name = name
        self.pending = pending
        self.delivered = delivered
        self.dead = dead
        self.health = health
        self.gateway = gateway
        self.reportedAt = reportedAt
    }

    /// Whether the sink needs a look: dead letters (only an operator can send them again), or its
    /// last attempt failed or found it set up wrong.
    public var needsAttention: Bool { dead > 0 || (health.map { $0.state != .ok } ?? false) }
}

private extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
