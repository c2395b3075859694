import BraceletDecoder
import BraceletStore
import BraceletSummaries
import Foundation
import Synchronization

/// What recomputing some days wrote.
public struct RecomputeReport: Sendable {
    /// An empty report: nothing recomputed yet.
    public init() {}

    /// Local dates recomputed.
    public var dates: [String] = []
    /// Daily summaries whose content changed (each wrote an outbox entry).
    public var changedSummaries = 0
    /// Sleep sessions whose content changed (each wrote an outbox entry).
    public var changedSleepSessions = 0
    /// Days whose vitality metrics changed.
    public var changedVitalityDays = 0
    /// Vitality fields left empty, with why, per date.
    public var missingVitalityFields: [String: [MissingField]] = [:]
    /// Diagnostics from the summary engine about the stored samples.
    public var diagnostics: [SummaryDiagnostic] = []
}

/// Recomputes the summaries, sleep sessions and vitality metrics of the local days new samples
/// touched, from what the store holds, and writes the changed ones back (the store writes an outbox
/// entry in the same transaction as each change).
///
/// Only the touched days are recomputed. Consecutive touched days are read from the store together,
/// at most ``daysPerRead`` of them at a time (so a backfill of a year never holds the year in
/// memory), as one span that also covers the 24 hours before the first (a night that ends on that date starts
/// the evening before) and the 18 hours after the last (a night that starts that evening must be
/// seen whole to be assigned to the date it ends on).
public struct SummaryRecomputer: Sendable {
    /// Summary rules (time zone, zones, quality threshold).
    public var configuration: SummaryConfiguration
    /// Age stored with the vitality metrics; nil stores them with `age` null (the metrics do not
    /// depend on it; scoring takes the age when it runs).
    public var age: Int?
    /// The current time, Unix seconds: whether a day is over, and which samples lie in the future.
    public var now: Int64

    /// A recomputer with these rules.
    public init(configuration: SummaryConfiguration, age: Int?, now: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.configuration = configuration
        self.age = age
        self.now = now
    }

    /// Whether the heart-rate zones rest on the wearer's own age or maximum heart rate (not the
    /// assumed default age): movement minutes need them.
    public var zonesAreKnown: Bool { configuration.age != nil || configuration.hrMax != nil }

    /// What to tell the user when data is stored without what the zones need, or nil when nothing
    /// is missing. `listen` and `ingest` print it as a warning.
    public func missingZoneInputWarning(database: String) -> String? {
        guard !zonesAreKnown else { return nil }
        return "no --age or --hr-max given: the heart-rate zones assume age \(SummaryConfiguration.defaultAge) and the vitality "
            + "metrics are stored without movement minutes (they depend on the zones); everything else is stored. "
            + "Run `bracelet recompute --db \(database) --age N` (or --hr-max N) to complete them."
    }

    /// The summary kind under which a day's summaries are stored and forwarded.
    public static let dailyKind = "daily"

    /// The most consecutive days read from the store and summarised in one pass. A pass holds its
    /// days' slots, beats, engine and summaries, about 3 MB per V2 day, and `runsAtOnce` passes run
    /// together: 4 days keep a recompute of any length to about 25 MB of them, where a week made
    /// 50 MB and two weeks 100 MB; the price is the 42 hours read around each span, 44 % more reading.
    public static let daysPerRead = 4

    /// How many runs are summarised at the same time: the summary engine is most of a recompute's
    /// CPU time and a run's engine shares nothing with another's, so a gateway's second core halves
    /// it. Each run in flight holds its samples in memory. Runs are read, summarised and saved as a
    /// pipeline: while the engine summarises a run on another thread, the calling thread (the one
    /// the store belongs to) saves the run before and reads the next, so reading and saving, a
    /// third of a recompute, no longer wait for the engine, nor the engine for them.
    public static let runsAtOnce = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))

    /// `transform` of every element, the elements on separate threads when there are several.
    package static func inParallel<Input: Sendable, Output: Sendable>(_ inputs: [Input],
                                                              _ transform: @Sendable (Input) -> Output) -> [Output] {
        guard inputs.count > 1 else { return inputs.map(transform) }
        let results = Mutex<[Output?]>(Array(repeating: nil, count: inputs.count))
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let output = transform(inputs[index])
            results.withLock { $0[index] = output }
        }
        // concurrentPerform returns after every iteration ran, so every index holds its output.
        return results.withLock { $0.map { $0! } }
    }

    /// Recomputes `dates` (YYYY-MM-DD, local) of `device` and stores what changed. `daysDone` is
    /// told how many more of the dates are done as each day is stored (and, at the end of a run,
    /// the days of the run that held nothing to store), so a long recompute shows its progress day
    /// by day.
    public func recompute(device: String, dates: [String], store: Store, daysDone: ((Int) -> Void)? = nil) throws -> RecomputeReport {
        var report = RecomputeReport()
        let days = Set(dates).sorted().compactMap { date in
            LocalDates.unixSecondsRange(of: date, in: configuration.timeZone).map { (date: date, range: $0) }
        }
        // Runs of consecutive days share one read of the store.
        var runs: [[(date: String, range: Range<Int64>)]] = []
        for day in days {
            if let run = runs.last, let last = run.last, last.range.upperBound == day.range.lowerBound,
               run.count < Self.daysPerRead {
                runs[runs.count - 1].append(day)
            } else {
                runs.append([day])
            }
        }
        // The store is read and written on the calling thread, run after run in order; the summary
        // engine, the CPU-bound part, runs on other threads meanwhile (see `runsAtOnce`).
        var inFlight: [(days: Int, run: Background<SummarisedRun>)] = []
        for run in runs {
            guard let first = run.first, let last = run.last else { continue }
            // The oldest run is saved before the next is read: the calling thread and the engine of
            // the other run in flight keep both cores busy, and no more than `runsAtOnce` runs'
            // samples and summaries are held at a time.
            if inFlight.count == Self.runsAtOnce {
                let oldest = inFlight.removeFirst()
                try save(try oldest.run.value(), days: oldest.days, device: device, into: store, report: &report, daysDone: daysDone)
            }
            let from = first.range.lowerBound - 86_400
            let to = last.range.upperBound + 18 * 3600
            // Damaged rows must never be summarised, nor new rows stored beside them.
            try store.requireIntactMeasurements(device: device, seconds: from..<to)
            let dates = run.map(\.date)
            let slots = try store.slots(device: device, from: from, to: to)
            let beats = try store.beats(device: device, fromMs: from * 1000, toMs: to * 1000)
            inFlight.append((dates.count, Background { [self] in try summarise(dates, device: device, slots: slots, beats: beats) }))
        }
        for (days, run) in inFlight { try save(try run.value(), days: days, device: device, into: store, report: &report, daysDone: daysDone) }
        return report
    }

    /// Stores what a run of `days` days summarised, day by day, telling `daysDone`.
    private func save(_ run: SummarisedRun, days: Int, device: String, into store: Store, report: inout RecomputeReport,
                      daysDone: ((Int) -> Void)?) throws {
        report.diagnostics += run.diagnostics
        for day in run.days {
            try save(day, of: run.engine, device: device, into: store, report: &report)
            daysDone?(1)
        }
        if days > run.days.count { daysDone?(days - run.days.count) }
    }

    /// One run of days summarised, with each day's document made: everything of a recompute that
    /// needs no store.
    struct SummarisedRun: Sendable {
        var engine: SummaryEngine
        var diagnostics: [SummaryDiagnostic]
        var days: [SummarisedDay]
    }

    /// A day's summary with its stored form.
    struct SummarisedDay: Sendable {
        var date: String
        var summary: DailySummary
        var document: CanonicalDocument
        var scoreInput: String?
    }

    private func summarise(_ dates: [String], device: String, slots: [Slot], beats: [Beat]) throws -> SummarisedRun {
        var engine = SummaryEngine(configuration: configuration, summarising: dates)
        let diagnostics = engine.add(slots: slots, beats: beats, now: now)
        let days = try dates.compactMap { date -> SummarisedDay? in
            guard let day = engine.day(date) else { return nil }
            return SummarisedDay(date: date, summary: day,
                                 document: try CanonicalDocument(day, what: "summary \(Self.dailyKind) of \(device) on \(date)"),
                                 scoreInput: try DayScoreInput(summary: day).text())
        }
        return SummarisedRun(engine: engine, diagnostics: diagnostics, days: days)
    }

    private func save(_ summarised: SummarisedDay, of engine: SummaryEngine, device: String, into store: Store,
                      report: inout RecomputeReport) throws {
        let date = summarised.date, day = summarised.summary
        report.dates.append(date)
        let stamp = SummaryStamp(basis: configuration.summaryBasis, computedAt: now)
        if case .changed = try store.upsertDailySummary(device: device, localDate: date, kind: Self.dailyKind, document: summarised.document,
                                                        stamp: stamp, scoreInput: { summarised.scoreInput }) {
            report.changedSummaries += 1
        }
        let sessions = engine.sleepSessions.filter { $0.recordDate == date }
        // Sessions of this date that this computation no longer produces stop being current.
        try store.supersedeSleepSessions(device: device, localDate: date)
        for session in sessions {
            if case .changed = try store.upsertSleepSession(device: device, start: session.startSession, stop: session.stopSession,
                                                            localDate: date, value: session, basis: stamp.basis,
                                                            scoreInput: try SleepScoreInput.text(of: session)) {
                report.changedSleepSessions += 1
            }
        }
        guard var input = BraceletDay(summary: day, sleepSessions: sessions,
                                      summarySlotSeconds: configuration.summarySlotSeconds) else { return }
        if !zonesAreKnown {
            // Movement minutes and workouts count heart rate at or above the fat-burn zone.
            input.movementMinutes = nil
            input.workoutDurationsSeconds = []
        }
        // The mapping copies the age into the metrics and uses it for nothing else; the stored row
        // carries the real (possibly unknown) age.
        var (metrics, missing) = vitalityMetrics(for: input, age: age ?? ReferenceRanges.supportedAges.lowerBound)
        if !zonesAreKnown {
            missing = missing.map { m in
                m.field == .movementMinutes
                    ? MissingField(field: .movementMinutes, reason: "needs the heart-rate zones: give the age or maximum heart rate (bracelet person set --age N)")
                    : m
            }
        }
        let json = try StoredVitalityMetrics.encode(metrics, age: age, coverage: day.coverage, missing: missing)
        if try store.upsertVitalityMetrics(device: device, localDate: date, json: json) {
            report.changedVitalityDays += 1
        }
        report.missingVitalityFields[date] = missing
    }
}

extension RecomputeReport {
    /// Adds what another recompute of other days of the same device wrote.
    public mutating func merge(_ other: RecomputeReport) {
        dates += other.dates
        changedSummaries += other.changedSummaries
        changedSleepSessions += other.changedSleepSessions
        changedVitalityDays += other.changedVitalityDays
        missingVitalityFields.merge(other.missingVitalityFields) { _, new in new }
        diagnostics += other.diagnostics
    }
}
