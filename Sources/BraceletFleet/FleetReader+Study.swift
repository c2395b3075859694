import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

extension FleetReader {
    /// The study page from the fleet database at `now` (Unix seconds): a row per device of
    /// `fleet_devices` or `fleet_device_status` with its participant and last delivery, its days
    /// from `from` to `to` from the coverage of each delivered day summary, `score --postgres
    /// --device`'s verdict on its last seven days that are over (``vitalityDays(of:age:fromDate:toDate:)``,
    /// then `score`'s rule), and what its gateway last reported of it and of its sinks (model, last
    /// heard, last sync, battery and its change, backlog, open operator events: what the gateway's
    /// own page shows, read by the same code there, `StudyGatewayStatus`).
    ///
    /// The days are read `batch` devices per query, aggregated by the server: only each day's
    /// coverage leaves it, taken from the small score input stored beside the payload (from the
    /// payload for a row delivered without one). A date without a summary is missing once it is over
    /// in the UTC offset of the device's latest summary on the page or the week before it (UTC for a
    /// device with none).
    ///
    /// - Throws: ``FleetError/schemaBehind(found:needed:)`` when the fleet schema predates the
    ///   gateways' status (the owner runs `bracelet fleet migrate`), or a query's error.
    public func studyOverview(from: LocalDate, to: LocalDate, now: Int64, source: String, batch: Int = 100) throws -> StudyOverview {
        let version = try FleetSchema.version(connection) ?? 0
        guard version >= FleetSchema.statusVersion else { throw FleetError.schemaBehind(found: version, needed: FleetSchema.statusVersion) }
        let dates = StudyOverview.dates(from: from, to: to)
        let devices = try connection.execute("""
            SELECT coalesce(d.device, s.device), coalesce(s.user_id, d.user_id), \(Self.milliseconds("d.last_sync_at")), s.model, s.state,
                \(Self.milliseconds("s.last_heard_at")), \(Self.milliseconds("s.last_sync_at")), s.battery, s.battery_change,
                s.backlog_bytes, array_to_string(s.open_events, ' ')
            FROM fleet_devices d FULL JOIN fleet_device_status s ON s.device = d.device
            ORDER BY 1
            """).values
        var rows: [StudyParticipant] = []
        for start in stride(from: 0, to: devices.count, by: max(1, batch)) {
            let chunk = devices[start..<min(devices.count, start + max(1, batch))]
            let days = try coverage(devices: (chunk.first?[0] ?? "", chunk.last?[0] ?? ""),
                                    fromDate: from.adding(days: -StudyScoring.windowDays).description, toDate: to.description)
            for device in chunk {
                let serial = device[0] ?? ""
                let known = days[serial] ?? []
                // The offset of the latest day: its local midnight less its start (its end less its minutes).
                let offset = known.last.map { Int64($0.date.dayNumber) * 86_400 - ($0.coverage.dayEnd - Int64($0.coverage.dayMinutes) * 60) } ?? 0
                let page = StudyDay.page(dates: dates, coverage: Dictionary(known.map { ($0.date, $0.coverage) }, uniquingKeysWith: { a, _ in a }),
                                         now: now, dayEnd: { Int64($0.dayNumber + 1) * 86_400 - offset })
                let end = StudyScoring.windowEnd(of: page) ?? to
                let age = ReferenceRanges.supportedAges.lowerBound
                let window = try vitalityDays(of: .device(serial), age: age, fromDate: end.adding(days: -(StudyScoring.windowDays - 1)).description,
                                              toDate: end.description)
                rows.append(StudyParticipant(user: device[1], device: serial, model: device[3], days: page,
                                             scoring: StudyScoring(days: window, end: end, now: now, age: nil),
                                             health: Self.health(device), lastDeliveryAt: device[2].flatMap { Int64($0) }))
            }
        }
        rows.sort { ($0.user ?? "\u{10FFFF}", $0.device) < ($1.user ?? "\u{10FFFF}", $1.device) }
        return StudyOverview(from: from, to: to, now: now, source: source, participants: rows, sinks: try gatewaySinks(), origin: .fleet)
    }

    /// `column` (a `timestamptz`) as Unix ms.
    static func milliseconds(_ column: String) -> String {
        "(extract(epoch FROM \(column)) * 1000)::bigint"
    }

    /// The health a gateway reported in a device's row of ``studyOverview(from:to:now:source:batch:)``
    /// (`state` to `open_events`, from the fifth column), `nil` when none did.
    static func health(_ row: [String?]) -> StudyDeviceHealth? {
        guard row.count == 11, let state = row[4] else { return nil }
        func int(_ index: Int) -> Int? { row[index].flatMap { Int($0) } }
        return StudyDeviceHealth(state: state, lastHeardAt: row[5].flatMap { Int64($0) }, lastSyncAt: row[6].flatMap { Int64($0) },
                                 battery: int(7), batteryChange: int(8), backlogBytes: int(9),
                                 openEvents: (row[10] ?? "").split(separator: " ").map(String.init))
    }

    /// Every gateway's sinks as it last reported them, by gateway and sink.
    func gatewaySinks() throws -> [StudySink] {
        let rows = try connection.execute("""
            SELECT gateway, sink, pending, delivered, dead, state, failures_in_a_row, \(Self.milliseconds("last_attempt_at")),
                \(Self.milliseconds("last_success_at")), last_error, \(Self.milliseconds("reported_at"))
            FROM fleet_gateway_sinks ORDER BY gateway, sink
            """).values
        return rows.map { row in
            func int(_ index: Int) -> Int { row[index].flatMap { Int($0) } ?? 0 }
            let health = row[5].flatMap(SinkHealth.State.init(rawValue:)).map { state in
                SinkHealth(sink: row[1] ?? "", state: state, lastAttemptAt: row[7].flatMap { Int64($0) } ?? 0,
                           lastSuccessAt: row[8].flatMap { Int64($0) }, failuresInARow: int(6), lastError: row[9])
            }
            return StudySink(name: row[1] ?? "", pending: int(2), delivered: int(3), dead: int(4), health: health, gateway: row[0],
                             reportedAt: row[10].flatMap { Int64($0) })
        }
    }

    /// Each day summary's coverage of the devices `first...last` (in the server's order) from
    /// `fromDate` to `toDate`, oldest first per device.
    ///
    /// Only the `coverage` object leaves the server, cut out of the score input's text (of the
    /// payload for a row delivered without one): both are canonical JSON, in which `"coverage":`
    /// is the day summary's one key of that name (a string holding it would escape its quotes) and
    /// its value a flat object. Cutting it out reads each text once; parsing the 2 kB score input as
    /// `jsonb` took 14 times as long (3.5 s against 0.26 s for 100 devices x 90 days at load 13).
    private func coverage(devices: (first: String, last: String), fromDate: String, toDate: String) throws
        -> [String: [(date: LocalDate, coverage: DayCoverage)]] {
        let rows = try connection.execute("""
            SELECT device, local_date::text,
                split_part(split_part(CASE WHEN score_input IS NOT NULL THEN score_input ELSE payload END, '"coverage":', 2), '}', 1) || '}'
            FROM fleet_daily_summaries
            WHERE kind = $1 AND device BETWEEN $2 AND $3 AND local_date BETWEEN $4::date AND $5::date
            ORDER BY device, local_date
            """, [Self.dailyKind, devices.first, devices.last, fromDate, toDate])
        var result: [String: [(date: LocalDate, coverage: DayCoverage)]] = [:]
        let decoder = JSONDecoder()
        for row in rows.values {
            guard row.count == 3, let device = row[0], let date = row[1].flatMap(LocalDate.init(iso:)),
                  let coverage = row[2].flatMap({ try? decoder.decode(DayCoverage.self, from: Data($0.utf8)) }) else {
                throw FleetError.badRow(detail: "the day summary of \(row.first.flatMap { $0 } ?? "a device") on \(row.count > 1 ? row[1] ?? "?" : "?") "
                                        + "has no coverage this build reads")
            }
            result[device, default: []].append((date, coverage))
        }
        return result
    }
}
