import BraceletDecoder
import BraceletSummaries
import BraceletVitality

extension FleetReader {
    /// The study page from the fleet database at `now` (Unix seconds): a row per device of
    /// `fleet_devices` with its participant and last delivery, its days from `from` to `to` from the
    /// coverage of each delivered day summary, and `score --postgres --device`'s verdict on its last
    /// seven days that are over (``vitalityDays(of:age:fromDate:toDate:)``, then `score`'s rule). The
    /// fleet holds what gateways delivered, not their status: no battery, events or sinks.
    ///
    /// The days are read `batch` devices per query, aggregated by the server: only each day's
    /// coverage leaves it, taken from the small score input stored beside the payload (from the
    /// payload for a row delivered without one). A date without a summary is missing once it is over
    /// in the UTC offset of the device's latest summary on the page or the week before it (UTC for a
    /// device with none).
    public func studyOverview(from: LocalDate, to: LocalDate, now: Int64, source: String, batch: Int = 100) throws -> StudyOverview {
        let dates = StudyOverview.dates(from: from, to: to)
        let devices = try connection.execute("""
            SELECT device, user_id, (extract(epoch FROM last_sync_at) * 1000)::bigint FROM fleet_devices ORDER BY device
            """).values
        var rows: [StudyParticipant] = []
        for start in stride(from: 0, to: devices.count, by: max(1, batch)) {
            let chunk = devices[start..<min(devices.count, start + max(1, batch))]
            let days = try coverage(devices: (chunk.first?[0] ?? "", chunk.last?[0] ?? ""),
                                    fromDate: from.adding(days: -StudyScoring.windowDays).description, toDate: to.description)
            for device in chunk {
                let serial = device[0] ?? ""
                let known = days[serial] ?? []
                let offset = known.last.map { Int64($0.date.dayNumber) * 86_400 - $0.dayStart } ?? 0
                let page = StudyDay.page(dates: dates, coverage: Dictionary(known.map { ($0.date, $0.coverage) }, uniquingKeysWith: { a, _ in a }),
                                         now: now, dayEnd: { Int64($0.dayNumber + 1) * 86_400 - offset })
                let end = StudyScoring.windowEnd(of: page) ?? to
                let age = ReferenceRanges.supportedAges.lowerBound
                let window = try vitalityDays(of: .device(serial), age: age, fromDate: end.adding(days: -(StudyScoring.windowDays - 1)).description,
                                              toDate: end.description)
                rows.append(StudyParticipant(user: device[1], device: serial, model: nil, days: page,
                                             scoring: StudyScoring(days: window, end: end, now: now, age: nil),
                                             lastDeliveryAt: device[2].flatMap { Int64($0) }))
            }
        }
        rows.sort { ($0.user ?? "\u{10FFFF}", $0.device) < ($1.user ?? "\u{10FFFF}", $1.device) }
        return StudyOverview(from: from, to: to, now: now, source: source, participants: rows, sinks: nil)
    }

    /// Each day summary's coverage and start of the devices `first...last` (in the server's order)
    /// from `fromDate` to `toDate`, oldest first per device.
    private func coverage(devices: (first: String, last: String), fromDate: String, toDate: String) throws
        -> [String: [(date: LocalDate, dayStart: Int64, coverage: DayCoverage)]] {
        let rows = try connection.execute("""
            SELECT device, local_date::text, s->>'dayStart', s->'coverage'->>'dayEnd', s->'coverage'->>'dayMinutes',
                s->'coverage'->>'recordedMinutes', s->'coverage'->>'wornMinutes', s->'coverage'->>'dayIsOver'
            FROM (SELECT device, local_date,
                      CASE WHEN score_input IS NOT NULL THEN score_input::jsonb->'summary' ELSE payload::jsonb->'summary' END AS s
                  FROM fleet_daily_summaries
                  WHERE kind = $1 AND device BETWEEN $2 AND $3 AND local_date BETWEEN $4::date AND $5::date) AS days
            ORDER BY device, local_date
            """, [Self.dailyKind, devices.first, devices.last, fromDate, toDate])
        var result: [String: [(date: LocalDate, dayStart: Int64, coverage: DayCoverage)]] = [:]
        for row in rows.values {
            guard row.count == 8, let device = row[0], let date = row[1].flatMap(LocalDate.init(iso:)),
                  let dayStart = row[2].flatMap({ Int64($0) }), let dayEnd = row[3].flatMap({ Int64($0) }),
                  let minutes = row[4].flatMap({ Int($0) }), let recorded = row[5].flatMap({ Int($0) }),
                  let worn = row[6].flatMap({ Int($0) }) else {
                throw FleetError.badRow(detail: "a day summary of \(row.first.flatMap { $0 } ?? "a device") has no coverage this build reads")
            }
            let coverage = DayCoverage(dayEnd: dayEnd, dayMinutes: minutes, recordedMinutes: recorded, wornMinutes: worn,
                                       dayIsOver: row[7] == "true")
            result[device, default: []].append((date, dayStart, coverage))
        }
        return result
    }
}
