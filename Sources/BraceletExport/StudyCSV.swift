import BraceletDecoder
import BraceletVitality

/// The study page's table as CSV (RFC 4180, `\r\n`), one line per participant device and day, with
/// the same numbers as the page; the row's own values (last heard to attention) repeat on each of its
/// lines so a line stands alone. A value the source does not know is an empty cell, never 0. Times
/// are ISO 8601 UTC; `open_events` and `attention` are `;`-separated lists.
public enum StudyCSV {
    /// The columns.
    public static let header = ["user", "device", "model", "date", "state", "recorded_min", "worn_min", "day_min",
                                "last_heard", "last_sync", "last_delivery", "battery_pct", "battery_change_24h", "backlog_bytes",
                                "open_events", "scorable", "window_start", "window_end", "not_scorable_because", "attention"]

    /// The table of `overview`.
    public static func text(_ overview: StudyOverview) -> String {
        func time(_ milliseconds: Int64?) -> String? { milliseconds.map { UTCTime.iso8601(unixMilliseconds: $0) } }
        var rows: [[String?]] = []
        for p in overview.participants {
            let h = p.health
            let row: [String?] = [
                time(h?.lastHeardAt), time(h?.lastSyncAt), time(p.lastDeliveryAt), h?.battery.map(String.init),
                h?.batteryChange.map(String.init), h?.backlogBytes.map(String.init), h.map { $0.openEvents.joined(separator: ";") },
                String(p.scoring.scorable), p.scoring.start.description, p.scoring.end.description, p.scoring.reason,
                p.attention.joined(separator: ";"),
            ]
            for day in p.days {
                rows.append([p.user, p.device, p.model, day.date.description, day.state.rawValue, day.recordedMinutes.map(String.init),
                             day.wornMinutes.map(String.init), day.dayMinutes.map(String.init)] + row)
            }
        }
        return CSVExport.text(header: header, rows: rows)
    }
}
