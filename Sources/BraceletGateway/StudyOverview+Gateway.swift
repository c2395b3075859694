import BraceletDecoder
import BraceletStore
import BraceletVitality
import Foundation

extension StudyOverview {
    /// The study page of a gateway's database at `now` (Unix seconds): a row per enrolled device
    /// (before its first sync, under its endpoint) and per other device the database holds (ingested
    /// or listened to: no gateway health), each with its days from `from` to `to` cut in its own
    /// zone (the record's, as its syncs use it). The enrolled devices' health and the sinks are
    /// ``StudyGatewayStatus/gateway(store:at:thresholds:)``'s, read the same way (``GatewayStudyRead``),
    /// so the page the fleet draws from what the gateway reported shows the same. `thresholds` are
    /// the gateway's (`gateway run --battery-low`): an event stays open by the rule that raised it.
    public static func gateway(store: Store, from: LocalDate, to: LocalDate, now: Int64, source: String,
                               thresholds: OperatorEvents.Thresholds) throws -> StudyOverview {
        let read = try GatewayStudyRead(store: store, now: now, thresholds: thresholds)
        let dates = dates(from: from, to: to)
        var rows: [StudyParticipant] = []
        for enrolled in read.enrolled {
            let status = enrolled.status
            let (days, scoring) = try StudyParticipant.days(in: store, device: status.device, dates: dates, zone: enrolled.zone, now: now,
                                                            age: enrolled.age)
            rows.append(StudyParticipant(user: status.user, device: status.device, model: status.model, days: days, scoring: scoring,
                                         health: status.health))
        }
        let enrolled = Set(read.enrolled.map(\.status.device))
        for record in read.records where !enrolled.contains(record.serial) {
            let participant = try ParticipantRecord.load(device: record.serial, from: store)
            let zone = participant.timeZone(on: to.description) ?? .current
            let (days, scoring) = try StudyParticipant.days(in: store, device: record.serial, dates: dates, zone: zone, now: now,
                                                            age: try? participant.current().age)
            rows.append(StudyParticipant(user: participant.user, device: record.serial, model: GatewayStudyRead.model(of: record),
                                         days: days, scoring: scoring))
        }
        rows.sort { ($0.user ?? "\u{10FFFF}", $0.device) < ($1.user ?? "\u{10FFFF}", $1.device) }
        return StudyOverview(from: from, to: to, now: now, source: source, participants: rows, sinks: read.sinks)
    }
}

extension StudyGatewayStatus {
    /// What the gateway's study page shows of its enrolled devices and sinks at `at` (Unix ms, the
    /// gateway's clock): what its fleet delivery reports to the fleet database. Only devices a sync
    /// identified are in it (the fleet knows devices by serial, and assigns them by serial).
    /// `thresholds` are the gateway's own, which decide whether an event is still open.
    public static func gateway(store: Store, at: Int64, thresholds: OperatorEvents.Thresholds) throws -> StudyGatewayStatus {
        let read = try GatewayStudyRead(store: store, now: at / 1_000, thresholds: thresholds)
        return StudyGatewayStatus(at: at, devices: read.enrolled.filter(\.identified).map(\.status), sinks: read.sinks)
    }
}

/// One read of what the study page shows of a gateway: each enrolment's health (``GatewayStatus``'s
/// values, the battery's change from the device's record, the open operator events from
/// ``OperatorEvents/open(for:latest:store:zone:now:thresholds:)``), the devices the database holds,
/// and each sink's deliveries and state.
struct GatewayStudyRead {
    /// An enrolled device, with the zone and age its days are cut and scored with.
    struct Enrolled {
        var status: StudyDeviceStatus
        var zone: TimeZone
        var age: Int?
        /// Whether a sync read its serial (else it is shown under its endpoint).
        var identified: Bool
    }

    /// The enrolments, in `gateway status`'s order.
    let enrolled: [Enrolled]
    /// Every device the database holds.
    let records: [DeviceRecord]
    /// The sinks, as `gateway status` shows them.
    let sinks: [StudySink]

    /// Reads `store` at `now` (Unix seconds), an event open by `thresholds`.
    init(store: Store, now: Int64, thresholds: OperatorEvents.Thresholds) throws {
        let status = try GatewayStatus(store: store, eventLimit: 0)
        let latest = try store.latestOperatorEvents()
        records = try store.devices()
        let models = Dictionary(records.map { ($0.serial, Self.model(of: $0)) }, uniquingKeysWith: { a, _ in a })
        enrolled = try status.devices.map { e in
            let device = e.serial ?? e.endpoint
            let zone = (try? DeviceSettings(enrolment: e))?.timeZone(serial: e.serial, store: store) ?? .current
            var change: Int?
            if let serial = e.serial, let readings = try store.batteryReadings(device: serial), let earlier = readings.earlier {
                change = readings.latest.percent - earlier.percent
            }
            let health = StudyDeviceHealth(state: e.state, lastHeardAt: e.lastHeardAt, lastSyncAt: e.lastSyncAt, battery: e.battery,
                                           batteryChange: change, backlogBytes: e.backlogBytes,
                                           openEvents: try OperatorEvents.open(for: e, latest: latest, store: store, zone: zone, now: now,
                                                                                       thresholds: thresholds))
            return Enrolled(status: StudyDeviceStatus(device: device, user: e.user, model: models[device] ?? e.sensor, health: health),
                            zone: zone, age: try Self.age(of: e.serial, store: store) ?? e.age, identified: e.serial != nil)
        }
        sinks = status.sinks.map {
            StudySink(name: $0.sink, pending: $0.pending, delivered: $0.delivered, dead: $0.dead, health: status.sinkHealth[$0.sink])
        }
    }

    /// What the model column shows of a device: a standard sensor's maker and model as its Device
    /// Information named them (else its profiles), a bracelet's model (`V1`, `V2`). The sensor
    /// comes first: a strap is never a V1 or V2, whatever a summary's record says.
    static func model(of record: DeviceRecord) -> String? {
        record.sensor ?? record.model.map { $0.description.uppercased() }
    }

    /// The age in `serial`'s participant record, `nil` without a serial or an age.
    private static func age(of serial: String?, store: Store) throws -> Int? {
        guard let serial else { return nil }
        return try? ParticipantRecord.load(device: serial, from: store).current().age
    }
}
