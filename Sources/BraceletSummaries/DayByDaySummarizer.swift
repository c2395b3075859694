import BraceletDecoder

/// Summarises a stream of samples in time order a day at a time, holding only the days still open:
/// memory stays flat however long the input is, and each day is handed over once no later sample
/// can change it. The results are those of ``SummaryEngine`` given the whole input at once.
///
/// Rules (why a bounded window suffices):
/// - Samples may come late by at most ``disorderToleranceSeconds`` behind the latest one fed; one
///   that comes later than that sets ``outOfOrder``, and the caller must summarise another way
///   (its results would otherwise depend on days already handed over).
/// - A day is final once the latest sample lies ``disorderToleranceSeconds`` plus two session
///   margins (the reach of session detection, see ``SummaryEngine``) past its end, so no session
///   ending on it can still grow, and no session ending on it reaches the end of the stage data
///   (such a session is truncated until later stage data comes or the input ends). A night that
///   starts on D is the session of D + 1, so D + 1 waits for it like any other day.
/// - Beats are not fed here: the HRV of each session comes from ``SessionHRVCollector``, computed
///   from the session windows a first run of this type reports (sessions do not depend on beats).
/// - Days are handed over in date order; the sleep sessions of a day come with it.
public struct DayByDaySummarizer {
    /// How far (seconds) a sample may come behind the latest one fed before the input counts as
    /// out of order: an hour, which covers samples of different intervals written side by side.
    public static let disorderToleranceSeconds: Int64 = 3600

    /// One finished day: its summary and the sleep sessions ending on it.
    public struct FinishedDay: Sendable {
        /// The day's summary.
        public var summary: DailySummary
        /// Its sleep sessions (main sleep and naps), oldest first.
        public var sleepSessions: [SleepSession]
        /// The window its sleep HRV comes from when it has no main sleep and its device does not
        /// stage sleep (a standard sensor worn at night), `nil` otherwise: a window to collect
        /// beats for, like a session's.
        public var nightWindow: SessionWindow?
    }

    private var engine: SummaryEngine
    private let now: Int64
    private let sourceOffsetSeconds: Int?
    private var pending: [Slot] = []
    /// End of the local day of the first pending slot: a slot from then on flushes the pending ones.
    private var pendingDayEnd: Int64 = .max
    /// Latest start of an accepted sample.
    private var latest: Int64 = .min / 2
    private var lastHandedOver: Int = .min
    private var report = DiagnosticCollector()
    private var tally = InputTally()
    /// Most slots held before they are given to the engine (bounds dense inputs).
    private static let flushCount = 8192

    /// A sample came more than ``disorderToleranceSeconds`` behind the latest one, or session
    /// detection needed data already let go: the days handed over may differ from
    /// ``SummaryEngine``'s, so the caller must summarise this input another way.
    public private(set) var outOfOrder = false

    /// A main sleep had no HRV in the table given to ``init(configuration:now:sourceOffsetSeconds:nightlyHRV:)``.
    public var missingNightlyHRV: Bool { engine.missingNightlyHRV }

    /// A summarizer.
    ///
    /// - Parameters:
    ///   - sourceOffsetSeconds: the UTC offset the source recorded, as in ``SummaryEngine/add(slots:beats:sourceOffsetSeconds:now:)``.
    ///   - nightlyHRV: the HRV of every sleep session (``SessionHRVCollector``); nil: sleep HRV is
    ///     computed without beats (a pass that only wants the sessions).
    public init(configuration: SummaryConfiguration, now: Int64, sourceOffsetSeconds: Int? = nil,
                nightlyHRV: [SessionWindow: NightlyHRV]? = nil) {
        engine = SummaryEngine(configuration: configuration)
        engine.nightlyHRV = nightlyHRV ?? [:]
        self.now = now
        self.sourceOffsetSeconds = sourceOffsetSeconds
    }

    /// Adds the next samples (in time order, within the tolerance) and hands over every day they
    /// finish.
    public mutating func add(_ slots: some Sequence<Slot>, finished: (FinishedDay) -> Void) {
        for slot in slots {
            if slot.start >= pendingDayEnd || pending.count >= Self.flushCount { flush(finished: finished) }
            if pending.isEmpty { pendingDayEnd = engine.localDay(engine.dayNumber(of: slot.start)).end }
            pending.append(slot)
        }
    }

    /// Ends the input: hands over the remaining days and returns the diagnostics of the whole
    /// input (``SummaryEngine/add(slots:beats:sourceOffsetSeconds:now:)``'s, in its order), with
    /// the beats `beatTally` dropped (from ``SessionHRVCollector/finish()``).
    public mutating func finish(beatTally: BeatTally = BeatTally(), finished: (FinishedDay) -> Void) -> [SummaryDiagnostic] {
        flush(finished: finished)
        handOver(through: .max, finished: finished)
        var report = report
        var tally = tally
        tally.implausibleBeats = beatTally.implausible
        tally.futureBeat = beatTally.firstFuture
        tally.report(into: &report, now: now)
        return report.diagnostics
    }

    private mutating func flush(finished: (FinishedDay) -> Void) {
        guard !pending.isEmpty else { return }
        for slot in pending where accepted(slot) {
            if slot.start < latest - Self.disorderToleranceSeconds { outOfOrder = true }
            latest = max(latest, slot.start)
        }
        engine.add(slots: pending, beats: [], sourceOffsetSeconds: sourceOffsetSeconds, now: now, report: &report, tally: &tally)
        pending.removeAll(keepingCapacity: true)
        pendingDayEnd = .max
        if engine.neededForgottenData { outOfOrder = true }
        let horizon = latest - Self.disorderToleranceSeconds - 2 * SummaryEngine.sessionMargin
        handOver(through: horizon, finished: finished)
    }

    /// Whether the engine keeps `slot` (the checks that come before its duplicate check).
    private func accepted(_ slot: Slot) -> Bool {
        SummaryEngine.plausibleTimes.contains(slot.start) && (1...3600).contains(slot.intervalSeconds) && slot.start <= now + 300
    }

    /// Hands over, in date order, the days that end by `horizon` and have no session at the end of
    /// the stage data, then forgets what no open day needs.
    private mutating func handOver(through horizon: Int64, finished: (FinishedDay) -> Void) {
        var handed = false
        for day in engine.summarizedDayNumbers where day > lastHandedOver {
            if horizon != .max {
                guard engine.localDay(day).end <= horizon, !engine.hasSessionAtDataEnd(day: day) else { break }
            }
            if let result = engine.result(ofDay: day) {
                finished(FinishedDay(summary: result.summary, sleepSessions: result.sessions, nightWindow: result.nightWindow))
            }
            lastHandedOver = day
            handed = true
        }
        guard handed, horizon != .max else { return }
        // What the open days can reach: their own samples, their sessions (which may begin days
        // earlier) and the stage samples session detection looks at, with a day to spare.
        let firstOpen = engine.localDay(lastHandedOver + 1).start
        let keep = min(firstOpen, engine.earliestClusterStart(endingAfter: firstOpen) ?? firstOpen)
            - 4 * SummaryEngine.sessionMargin - Self.disorderToleranceSeconds - 86_400
        engine.forget(before: keep, daysThrough: lastHandedOver)
    }
}

/// The beats dropped for their times, counted over a whole input (see ``SessionHRVCollector``).
public struct BeatTally: Sendable, Equatable {
    /// Beats outside 2000...2100.
    public var implausible = 0
    /// Earliest beat more than 5 minutes in the future (Unix ms), if any.
    public var firstFuture: Int64?

    /// No dropped beats.
    public init() {}
}
