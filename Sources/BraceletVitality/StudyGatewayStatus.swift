/// What a gateway knows at one moment of its enrolled devices and of its sinks, as the study page
/// shows them: read from the gateway's database (`StudyGatewayStatus.gateway`, BraceletGateway),
/// reported by the gateway's fleet delivery into the fleet database and read back there
/// (`FleetReader.studyOverview`, BraceletFleet), so that the page drawn from the fleet shows what
/// the gateway's own page shows.
public struct StudyGatewayStatus: Sendable, Hashable {
    /// When it was read (Unix ms, the gateway's clock).
    public var at: Int64
    /// The enrolled devices a sync has identified (by serial): the fleet knows devices by serial.
    public var devices: [StudyDeviceStatus]
    /// The gateway's sinks: deliveries and state of each.
    public var sinks: [StudySink]

    /// A status read at `at`.
    public init(at: Int64, devices: [StudyDeviceStatus], sinks: [StudySink]) {
        self.at = at
        self.devices = devices
        self.sinks = sinks
    }

    /// Whether `other` says the same of every device and sink, whenever it was read.
    public func saysTheSame(as other: StudyGatewayStatus) -> Bool {
        devices == other.devices && sinks == other.sinks
    }
}

/// One enrolled device of a ``StudyGatewayStatus``.
public struct StudyDeviceStatus: Sendable, Hashable {
    /// The device's serial (its endpoint before a sync read the serial, on the gateway's own page).
    public var device: String
    /// The study participant, when assigned.
    public var user: String?
    /// The model (`V1`, `V2`) or a standard sensor's maker and model, when known.
    public var model: String?
    /// What the gateway knows of it.
    public var health: StudyDeviceHealth

    /// A device's status.
    public init(device: String, user: String?, model: String?, health: StudyDeviceHealth) {
        self.device = device
        self.user = user
        self.model = model
        self.health = health
    }
}
