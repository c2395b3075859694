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
        var text = ""
        write(overview) { text += $0 }
        return text
    }

    /// Hands the table to `out` a line at a time (22 MB for 1,000 participants x 90 days is never held whole).
    public static func write(_ overview: StudyOverview, to out: (String) -> Void) {
        func time(_ milliseconds: Int64?) -> String? { milliseconds.map { UTCTime.iso8601(unixMilliseconds: $0) } }
        func fields(_ values: [String?]) -> String { values.map { CSVExport.field($0 ?? "") }.joined(separator: ",") }
        out(fields(header) + "\r\n")
        for p in overview.participants {
            let h = p.health
            let row = fields([
                time(h?.lastHeardAt), time(h?.lastSyncAt), time(p.lastDeliveryAt), h?.battery.map(String.init),
                h?.batteryChange.map(String.init), h?.backlogBytes.map(String.init), h.map { $0.openEvents.joined(separator: ";") },
                String(p.scoring.scorable), p.scoring.start.description, p.scoring.end.description, p.scoring.reason,
                p.attention.joined(separator: ";"),
            ])
            for day in p.days {
                out(fields([p.user, p.device, p.model, day.date.description, day.state.rawValue, day.recordedMinutes.map(String.init),
                            day.wornMinutes.map(String.init), day.dayMinutes.map(String.init)]) + "," + row + "\r\n")
            }
        }
    }
}
