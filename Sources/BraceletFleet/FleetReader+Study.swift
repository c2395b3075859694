import BraceletDecoder
import BraceletSummaries
import BraceletVitality
import Foundation

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
                // The offset of the latest day: its local midnight less its start (its end less its minutes).
                let offset = known.last.map { Int64($0.date.dayNumber) * 86_400 - ($0.coverage.dayEnd - Int64($0.coverage.dayMinutes) * 60) } ?? 0
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
