import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// One stored local day: its summary and the sleep sessions filed under it.
public struct ExportDay: Sendable, Equatable {
    /// The day's summary.
    public var summary: DailySummary
    /// The sleep sessions ending that day (main sleep and naps), oldest first.
    public var sleepSessions: [SleepSession]

    /// Creates a day.
    public init(summary: DailySummary, sleepSessions: [SleepSession]) {
        self.summary = summary
        self.sleepSessions = sleepSessions
    }

    /// The main sleep ending that day, if any.
    public var mainSleep: SleepSession? { sleepSessions.first { $0.isMainSleep } }
}

/// What an export or report is made from: one device's stored days, read through the store's
/// public read API, with the clock the days were cut in.
public struct ExportDataset: Sendable, Equatable {
    /// The bracelet's serial number.
    public var device: String
    /// The bracelet's model (`V1`, `V2`), when the store knows it.
    public var model: String?
    /// The time zone of the days.
    public var clock: ExportClock
    /// The days, oldest first.
    public var days: [ExportDay]
    /// Length of a summary slot, seconds (the largest step that divides every slot start).
    public var slotSeconds: Int
    /// The moment the days are judged at (Unix seconds): a day not over then, or over with too
    /// little recorded, is marked partial (``BraceletSummaries/DayCoverage/status(at:)``).
    public var now: Int64

    /// Creates a dataset from values (tests, sync payloads); `now` defaults to the current time.
    public init(device: String, model: String?, clock: ExportClock, days: [ExportDay], slotSeconds: Int? = nil,
                now: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.device = device
        self.model = model
        self.clock = clock
        self.days = days
        self.slotSeconds = slotSeconds ?? Self.inferSlotSeconds(days.map(\.summary))
        self.now = now
    }

    /// Reads the days `from...to` (inclusive `YYYY-MM-DD`; nil = open) of `device`.
    ///
    /// - Parameter timeZone: the zone the days were cut in (checked against every day); nil infers
    ///   the one fixed offset all days share.
    /// - Throws: ``ExportError`` when nothing is stored in the range, a stored summary cannot be
    ///   read, or the zone does not fit; store errors as thrown by the store.
    public static func load(store: Store, device: String, from: String?, to: String?, timeZone: TimeZone?) throws -> ExportDataset {
        let all = try store.summaryDates(device: device)
        let dates = all.filter { date in (from.map { date >= $0 } ?? true) && (to.map { date <= $0 } ?? true) }
        guard !dates.isEmpty else {
            let held = all.isEmpty ? "no days" : "days \(all.first ?? "") to \(all.last ?? "")"
            throw ExportError.nothingToExport("\(store.path) has no daily summary of \(device) from \(from ?? "the start") to \(to ?? "the end") (it holds \(held)); choose days it holds, or store more with bracelet ingest, bracelet listen --db or the gateway (bracelet gateway enroll)")
        }
        let decoder = JSONDecoder()
        var days: [ExportDay] = []
        for date in dates {
            guard let stored = try store.dailySummary(device: device, localDate: date, kind: SummaryRecomputer.dailyKind) else { continue }
            let summary: DailySummary
            do { summary = try decoder.decode(DailySummary.self, from: stored.json) } catch {
                throw ExportError.unreadableSummary("the stored summary of \(device) on \(date) cannot be read (\(error)); rewrite the stored days with bracelet recompute --db \(store.path) --age N")
            }
            var sessions: [SleepSession] = []
            for row in try store.sleepSessions(device: device, localDate: date) {
                do { sessions.append(try decoder.decode(SleepSession.self, from: row.json)) } catch {
                    throw ExportError.unreadableSummary("the stored sleep session of \(device) starting \(row.start) cannot be read (\(error)); rewrite the stored days with bracelet recompute --db \(store.path) --age N")
                }
            }
            days.append(ExportDay(summary: summary, sleepSessions: sessions))
        }
        let clock = try ExportClock.resolve(days: days.map(\.summary), requested: timeZone)
        let model = try store.devices().first { $0.serial == device }?.model.map { "\($0)" }
        return ExportDataset(device: device, model: model, clock: clock, days: days)
    }

    /// The greatest common step of the slot starts (every kind), at least 60 s; 60 without slots.
    static func inferSlotSeconds(_ days: [DailySummary]) -> Int {
        var starts = Set<Int64>()
        for day in days {
            starts.formUnion(day.bpm.slots.map(\.intervalDate))
            starts.formUnion(day.steps.slots.map(\.intervalDate))
            starts.formUnion(day.breath.slots.map(\.intervalDate))
        }
        let sorted = starts.sorted()
        var step: Int64 = 0
        for (a, b) in zip(sorted, sorted.dropFirst()) { step = gcd(step, b - a) }
        return step >= 60 ? Int(step) : 60
    }
}


private func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
