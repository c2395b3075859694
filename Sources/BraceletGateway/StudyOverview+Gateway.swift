import BraceletDecoder
import BraceletStore
import BraceletVitality
import Foundation

extension StudyOverview {
    /// The study page of a gateway's database at `now` (Unix seconds): a row per enrolled device
    /// (before its first sync, under its endpoint) and per other device the database holds (ingested
    /// or listened to: no gateway health), each with its days from `from` to `to` cut in its own
    /// zone (the record's, as its syncs use it). Last heard, last sync, battery, backlog, the user and
    /// the sinks' counts are ``GatewayStatus``'s own, read once; the battery's change comes from the
    /// device's record, the open operator events from ``OperatorEvents/open(for:latest:store:zone:now:thresholds:)``.
    public static func gateway(store: Store, from: LocalDate, to: LocalDate, now: Int64, source: String) throws -> StudyOverview {
        let status = try GatewayStatus(store: store, eventLimit: 0)
        let latest = try store.latestOperatorEvents()
        let records = try store.devices()
        let models = Dictionary(records.map { ($0.serial, $0.model.map { $0.description.uppercased() }) }, uniquingKeysWith: { a, _ in a })
        let dates = dates(from: from, to: to)
        var rows: [StudyParticipant] = []
        var enrolled = Set<String>()
        for e in status.devices {
            let device = e.serial ?? e.endpoint
            enrolled.insert(device)
            let zone = (try? DeviceSettings(enrolment: e))?.timeZone(serial: e.serial, store: store) ?? .current
            let (days, scoring) = try StudyParticipant.days(in: store, device: device, dates: dates, zone: zone, now: now,
                                                            age: try age(of: e.serial, store: store) ?? e.age)
            var change: Int?
            if let serial = e.serial, let readings = try store.batteryReadings(device: serial), let earlier = readings.earlier {
                change = readings.latest.percent - earlier.percent
            }
            let health = StudyDeviceHealth(state: e.state, lastHeardAt: e.lastHeardAt, lastSyncAt: e.lastSyncAt, battery: e.battery,
                                           batteryChange: change, backlogBytes: e.backlogBytes,
                                           openEvents: try OperatorEvents.open(for: e, latest: latest, store: store, zone: zone, now: now))
            rows.append(StudyParticipant(user: e.user, device: device, model: models[device] ?? nil, days: days, scoring: scoring,
                                         health: health))
        }
        for record in records where !enrolled.contains(record.serial) {
            let participant = try ParticipantRecord.load(device: record.serial, from: store)
            let zone = participant.timeZone(on: to.description) ?? .current
            let (days, scoring) = try StudyParticipant.days(in: store, device: record.serial, dates: dates, zone: zone, now: now,
                                                            age: try? participant.current().age)
            rows.append(StudyParticipant(user: participant.user, device: record.serial, model: models[record.serial] ?? nil,
                                         days: days, scoring: scoring))
        }
        rows.sort { ($0.user ?? "\u{10FFFF}", $0.device) < ($1.user ?? "\u{10FFFF}", $1.device) }
        let sinks = status.sinks.map { StudySink(name: $0.sink, pending: $0.pending, delivered: $0.delivered, dead: $0.dead) }
        return StudyOverview(from: from, to: to, now: now, source: source, participants: rows, sinks: sinks)
    }

    /// The age in `serial`'s participant record, `nil` without a serial or an age.
    private static func age(of serial: String?, store: Store) throws -> Int? {
        guard let serial else { return nil }
        return try? ParticipantRecord.load(device: serial, from: store).current().age
    }
}
