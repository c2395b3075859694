import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation

/// The time zone the stored days were cut in, used to write every instant with the UTC offset that
/// applied to it, so a time frame in an export reads exactly as the local day was computed.
///
/// The store keeps each day's first and last second but not the zone's name, so the zone is either
/// given (and checked against every day) or inferred when all days share one fixed offset.
public struct ExportClock: Sendable, Equatable {
    /// The zone instants are written in.
    public let timeZone: TimeZone
    /// True when the zone was given by name; false when inferred as a fixed offset from the days.
    public let named: Bool

    /// A clock for a zone (no check against stored days).
    public init(timeZone: TimeZone, named: Bool = true) {
        self.timeZone = timeZone
        self.named = named
    }

    /// The clock the days were cut with: `requested` after checking that every day's boundaries
    /// match it, else the one fixed offset all days share.
    ///
    /// - Throws: ``ExportError/timeZone(_:)`` when a day does not match `requested`, or without
    ///   `requested` when the days have different offsets (a daylight-saving zone).
    public static func resolve(days: [DailySummary], requested: TimeZone?) throws(ExportError) -> ExportClock {
        guard let utc = TimeZone(secondsFromGMT: 0) else { throw .timeZone("the UTC time zone is not available on this system") }
        if let requested {
            for day in days {
                let range = LocalDates.unixSecondsRange(of: day.date, in: requested)
                guard range == day.dayStart..<day.dayEnd else {
                    let stored = ExportClock(timeZone: utc, named: false)
                    throw .timeZone("day \(day.date) was not cut in \(SummaryConfiguration.name(of: requested)): it is stored as \(stored.timestamp(day.dayStart)) to \(stored.timestamp(day.dayEnd)); pass the --tz that ingest used, or leave --tz out to use the stored offset")
                }
            }
            return ExportClock(timeZone: requested, named: true)
        }
        var offsets = Set<Int64>()
        for day in days {
            guard let midnight = LocalDates.unixSecondsRange(of: day.date, in: utc) else {
                throw .unreadableSummary("a stored day has the date \"\(day.date)\", not YYYY-MM-DD; rewrite the stored days with bracelet recompute --db DB --age N")
            }
            offsets.insert(midnight.lowerBound - day.dayStart)
            offsets.insert(midnight.upperBound - day.dayEnd)
        }
        guard offsets.count <= 1 else {
            let list = offsets.sorted().map { offsetText(Int($0)) }.joined(separator: ", ")
            throw .timeZone("the stored days use several UTC offsets (\(list)): they were cut in a zone with daylight saving. Pass the zone given to ingest, e.g. --tz America/New_York")
        }
        let offset = Int(offsets.first ?? 0)
        guard let zone = TimeZone(secondsFromGMT: offset) else {
            throw .timeZone("the stored offset \(offset) s is not a valid UTC offset; pass --tz ZONE")
        }
        return ExportClock(timeZone: zone, named: false)
    }

    /// Seconds east of UTC at `time` (Unix seconds).
    public func offsetSeconds(at time: Int64) -> Int {
        Int(ZonedTime.offset(at: time, in: timeZone))
    }

    /// RFC 3339 local time with the offset in force at `time`, e.g. `2026-03-08T03:00:00-04:00`
    /// (`Z` when the offset is zero).
    public func timestamp(_ time: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(time)).formatted(Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: timeZone))
    }

    /// Local clock time `HH:MM` at `time`.
    public func clockTime(_ time: Int64) -> String {
        String(timestamp(time).dropFirst(11).prefix(5))
    }

    /// Local date and clock time `YYYY-MM-DD HH:MM` at `time`.
    public func dateAndClockTime(_ time: Int64) -> String {
        let text = timestamp(time)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// The zone as people read it: the IANA name with the offset, e.g. `America/New_York (UTC-05:00)`,
    /// or `UTC+02:00` for an inferred fixed offset; `at` selects the offset shown.
    public func zoneName(at time: Int64) -> String {
        let offset = "UTC" + Self.offsetText(offsetSeconds(at: time))
        return named ? "\(SummaryConfiguration.name(of: timeZone)) (\(offset))" : offset
    }

    /// `+HH:MM` / `-HH:MM` for an offset in seconds.
    static func offsetText(_ seconds: Int) -> String {
        let a = abs(seconds)
        return (seconds < 0 ? "-" : "+") + pad(a / 3600) + ":" + pad(a % 3600 / 60)
    }
}

private func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
