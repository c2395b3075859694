import BraceletDecoder
import Foundation

/// Incremental summary engine: feed it decoded slots and beats in any order, as often as you like,
/// and read back daily summaries and sleep sessions.
///
/// Adding samples recomputes only the local days they fall in, the sleep sessions near them, and the
/// days whose main sleep contains them. ``recomputeAll()`` recomputes everything from the stored
/// samples and gives the same result (the property tests check this).
///
/// Duplicates (same start time and interval; for beats the same time) are ignored, so adding the same data twice
/// changes nothing. Samples may arrive out of order and late.
public struct SummaryEngine: Sendable {
    /// The configuration every summary uses.
    public let configuration: SummaryConfiguration
    private var calendar: DayCalendar
    private let summarizer: DaySummarizer
    private var samplesByKey: [SampleKey: Slot] = [:]
    private var dayBuckets: [Int: [Slot]] = [:]
    private var unsortedDays: Set<Int> = []
    private var stages: [StageSample] = []
    private var beats: [Beat] = []
    private var clusters: [SleepCluster] = []
    private var sessionsByDay: [Int: [SleepSession]] = [:]
    private var summaries: [Int: DailySummary] = [:]
    /// Per day, the night window its sleep HRV was computed over (a device that does not stage sleep).
    private var nightWindows: [Int: SessionWindow] = [:]
    private var offsetsByDay: [Int: Int] = [:]
    private var warnedAboutSlot = false
    /// The only days whose summaries are kept (nil: every day; see ``init(configuration:summarising:)``).
    private var summarisedDays: Set<Int>?
    /// The "now" of the latest ``add(slots:beats:sourceOffsetSeconds:now:)``: whether a day is over.
    private var now: Int64 = .min
    /// First start and last end of the scored (awake or sleep) stage samples: the edges of the
    /// recorded data, at which sessions are truncated.
    private var stageEdges: (first: Int64, end: Int64)?
    /// The HRV of each sleep session, computed beforehand from beats the engine is not given (see
    /// ``DayByDaySummarizer``); nil: computed from the engine's own beats.
    var nightlyHRV: [SessionWindow: NightlyHRV]?
    /// A main sleep was not in ``nightlyHRV``: its HRV was computed without beats.
    private(set) var missingNightlyHRV = false
    /// Everything before this time was forgotten (``forget(before:daysThrough:)``).
    private var forgottenBefore: Int64 = .min
    /// Session detection needed stage samples that were forgotten: its result may differ from
    /// that of an engine that kept them.
    private(set) var neededForgottenData = false

    /// Dates (`YYYY-MM-DD`) whose daily summary the last ``add(slots:beats:sourceOffsetSeconds:now:)``
    /// recomputed, sorted; shows that work stays local.
    public private(set) var lastRecomputedDates: [String] = []

    /// Sample times accepted: 2000-01-01 ... 2100-01-01 (Unix seconds).
    public static let plausibleTimes: ClosedRange<Int64> = 946_684_800...4_102_444_800

    /// Margin around changed stage samples inside which sessions are re-detected (two 1-hour samples
    /// plus a minute: the longest reach of the separation and awake-attachment rules).
    static let sessionMargin: Int64 = 2 * 3600 + 60

    /// Creates an empty engine.
    public init(configuration: SummaryConfiguration) {
        self.configuration = configuration
        self.calendar = DayCalendar(timeZone: configuration.timeZone)
        self.summarizer = DaySummarizer(configuration: configuration)
    }

    /// Creates an empty engine that keeps the daily summaries of `dates` (local, `YYYY-MM-DD`)
    /// only. The samples and beats of other days still make the sleep sessions and main sleeps
    /// that reach into these days; only the other days' own summaries are not computed. A
    /// recompute reads 42 hours around the days it stores, and summarising those partial days
    /// too was a third of its summaries, each thrown away.
    public init(configuration: SummaryConfiguration, summarising dates: some Sequence<String>) {
        self.init(configuration: configuration)
        var numbers = Set<Int>()
        for date in dates {
            if let day = calendar.day(date: date) { numbers.insert(day.dayNumber) }
        }
        summarisedDays = numbers
    }

    // MARK: Reading

    /// All daily summaries, oldest first.
    public var days: [DailySummary] {
        summaries.keys.sorted().compactMap { summaries[$0] }
    }

    /// All sleep sessions (main sleeps and naps), oldest first.
    public var sleepSessions: [SleepSession] {
        sessionsByDay.keys.sorted().flatMap { sessionsByDay[$0] ?? [] }
    }

    /// The summary of one local date (`YYYY-MM-DD`), if there is data for it.
    public func day(_ date: String) -> DailySummary? {
        var calendar = calendar
        guard let day = calendar.day(date: date) else { return nil }
        return summaries[day.dayNumber]
    }

    /// The `bracelet summarize` document: every day (or only `date`), with the sleep sessions of those days.
    public func document(date: String? = nil) -> SummaryDocument {
        let selected = days.filter { date == nil || $0.date == date }
        let sessions = sleepSessions.filter { date == nil || $0.recordDate == date }
        return SummaryDocument(timeZone: SummaryConfiguration.name(of: configuration.timeZone), days: selected, sleepSessions: sessions)
    }

    /// HRV over all stored beats.
    public func hrv(filter: HRVFilter = .malik20) -> HRVResult {
        HRVAnalysis.analyze(beats, filter: filter)
    }

    // MARK: Adding

    /// Adds samples and beats, recomputes what they touch, and returns what was wrong with the input.
    ///
    /// - Parameters:
    ///   - slots: decoded samples, any interval 1...3600 s, any order; duplicates are ignored.
    ///   - beats: RR beats, any order; duplicates (same time) are ignored.
    ///   - sourceOffsetSeconds: the UTC offset the source recorded (capture header), if known; a change
    ///     within one local day is reported.
    ///   - now: current Unix time; samples starting more than 5 minutes later are dropped as from the future.
    @discardableResult
    public mutating func add(slots: [Slot], beats newBeatsInput: [Beat] = [], sourceOffsetSeconds: Int? = nil,
                             now: Int64 = Int64(Date().timeIntervalSince1970)) -> [SummaryDiagnostic] {
        var report = DiagnosticCollector()
        var tally = InputTally()
        add(slots: slots, beats: newBeatsInput, sourceOffsetSeconds: sourceOffsetSeconds, now: now, report: &report, tally: &tally)
        tally.report(into: &report, now: now)
        return report.diagnostics
    }

    /// ``add(slots:beats:sourceOffsetSeconds:now:)`` with the diagnostics collected into `report`, and
    /// the ones that count over all the input (duplicates, dropped beats) into `tally`: a caller that
    /// feeds one input in several calls reports them once, at its end, as one call would.
    mutating func add(slots: [Slot], beats newBeatsInput: [Beat], sourceOffsetSeconds: Int?, now: Int64,
                      report: inout DiagnosticCollector, tally: inout InputTally) {
        self.now = now
        if !warnedAboutSlot, 86_400 % configuration.summarySlotSeconds != 0 {
            warnedAboutSlot = true
            report.add(SummaryDiagnostic(kind: .slotNotDividingDay, message:
                "summary slot of \(configuration.summarySlotSeconds) s does not divide a day: the last slot of each day is shorter; choose a divisor of 86400 such as 60, 300 or 900"))
        }
        var dirtyDays: Set<Int> = []
        var newStages: [StageSample] = []
        var accepted: [Slot] = []
        var warnedIntervals: Set<Int32> = []
        // Sized once: a recompute hands a fresh engine 8 000 slots of 300 bytes, and growing the
        // table by doubling copied them 13 times (a seventh of a recompute's CPU time).
        samplesByKey.reserveCapacity(samplesByKey.count + slots.count)
        accepted.reserveCapacity(slots.count)
        var days = ZonedTime.Days(in: calendar.timeZone)
        for slot in slots {
            guard Self.plausibleTimes.contains(slot.start) else {
                report.add(SummaryDiagnostic(kind: .implausibleTime, time: slot.start, message:
                    "sample at Unix time \(slot.start) lies outside 2000...2100: it was dropped; the bracelet's clock was probably not set (set the time after every connection)"))
                continue
            }
            guard (1...3600).contains(slot.intervalSeconds) else {
                report.add(SummaryDiagnostic(kind: .badInterval, time: slot.start, message:
                    "sample at \(utcText(slot.start)) has an interval of \(slot.intervalSeconds) s, outside 1...3600 s: it was dropped; check the decoder or the CSV interval"))
                continue
            }
            guard slot.start <= now + 300 else {
                report.add(SummaryDiagnostic(kind: .futureSample, time: slot.start, message:
                    "sample at \(utcText(slot.start)) lies in the future (now is \(utcText(now))): it was dropped; set the bracelet's clock and sync again"))
                continue
            }
            let key = SampleKey(start: slot.start, intervalSeconds: slot.intervalSeconds)
            if let existing = samplesByKey[key] {
                if existing == slot {
                    tally.duplicates += 1
                    tally.firstDuplicate = min(tally.firstDuplicate ?? slot.start, slot.start)
                } else {
                    report.add(SummaryDiagnostic(kind: .conflictingDuplicate, time: slot.start, message:
                        "sample at \(utcText(slot.start)) was already stored with different values: the first one is kept; remove one of the sources if they disagree"))
                }
                continue
            }
            if 86_400 % Int(slot.intervalSeconds) != 0, warnedIntervals.insert(slot.intervalSeconds).inserted {
                report.add(SummaryDiagnostic(kind: .intervalNotDividingDay, time: slot.start, message:
                    "sample at \(utcText(slot.start)) has an interval of \(slot.intervalSeconds) s, which does not divide a day: it is used, but samples do not line up with midnight; prefer 1, 10, 30 or 60 s"))
            }
            samplesByKey[key] = slot
            for field in PhysiologicalRanges.violations(in: slot) {
                let value = field.value(in: slot).map { formatValue($0) } ?? "?"
                report.add(SummaryDiagnostic(kind: .outOfRange, time: slot.start, message:
                    "sample at \(utcText(slot.start)) has \(field.rawValue) \(value) \(field.unit), outside \(formatValue(field.range.lowerBound))...\(formatValue(field.range.upperBound)) \(field.unit): treated as missing (not clamped, not 0) and counted in that day's diagnostics; check the sensor or the source"))
            }
            let dayNumber = days.dayNumber(ofUnix: slot.start)
            if let offset = sourceOffsetSeconds {
                if let known = offsetsByDay[dayNumber], known != offset {
                    report.add(SummaryDiagnostic(kind: .timeZoneChanged, time: slot.start, message:
                        "the source's UTC offset changed from \(known) s to \(offset) s within local day \(calendar.day(number: dayNumber).date) (at \(utcText(slot.start))): summaries keep using \(SummaryConfiguration.name(of: configuration.timeZone)); pass --tz with the zone the wearer was in"))
                }
                offsetsByDay[dayNumber] = offset
            }
            dayBuckets[dayNumber, default: []].append(slot)
            unsortedDays.insert(dayNumber)
            dirtyDays.insert(dayNumber)
            accepted.append(slot)
            if let stage = slot.sleepStage {
                newStages.append(StageSample(start: slot.start, interval: Int64(slot.intervalSeconds), stage: stage,
                                             inBed: slot.activity.map { $0 == 7 } ?? true))
            }
        }
        // Usually every beat is kept: then the input is used as it is, not copied.
        let incoming = newBeatsInput.allSatisfy { InputTally.keeps($0, now: now) }
            ? newBeatsInput : newBeatsInput.filter { tally.accepts($0, now: now) }
        let newBeats = mergeBeats(incoming)
        var sessionDays: Set<Int> = []
        if !newStages.isEmpty {
            let oldEdges = stageEdges
            stages.append(contentsOf: newStages)
            stages.sort { ($0.start, $0.interval) < ($1.start, $1.interval) }
            for s in newStages where s.isScored {
                stageEdges = (min(stageEdges?.first ?? s.start, s.start), max(stageEdges?.end ?? s.end, s.end))
            }
            sessionDays = updateClusters(around: newStages)
            // Sessions at the old edges of the data may no longer be truncated.
            if let oldEdges, let stageEdges, oldEdges != stageEdges {
                for cluster in clusters where cluster.isSession && (cluster.firstSleep <= oldEdges.first || cluster.lastSleepEnd >= oldEdges.end) {
                    sessionDays.insert(stopDay(cluster))
                }
            }
        }
        // Days whose main sleep contains new samples or beats.
        for slot in accepted {
            for cluster in clustersOverlapping(slot.start, slot.start + Int64(slot.intervalSeconds)) where cluster.isSession {
                dirtyDays.insert(stopDay(cluster))
            }
        }
        if !newBeats.isEmpty {
            // newBeats is sorted: one binary search per session finds whether any new beat falls inside it.
            for cluster in clusters where cluster.isSession {
                let i = newBeats.partitioningIndex { $0.timeMs >= cluster.start * 1000 }
                if i < newBeats.count, newBeats[i].timeMs < cluster.stop * 1000 { dirtyDays.insert(stopDay(cluster)) }
            }
        }
        // Days whose night window (a device that does not stage sleep) holds new beats.
        var next = 0
        while next < newBeats.count {
            let number = calendar.dayNumber(of: newBeats[next].timeMs.floorDivided(by: 1_000).quotient)
            let day = calendar.day(number: number)
            if newBeats[next].timeMs < nightWindowStop(of: day) * 1000, nightWindow(of: day, samples: sortedBucket(number)) != nil {
                dirtyDays.insert(number)
            }
            next = max(next + 1, newBeats.partitioningIndex { $0.timeMs >= day.end * 1000 })
        }
        for day in sessionDays { rebuildSessions(day: day) }
        dirtyDays.formUnion(sessionDays)
        for day in dirtyDays { rebuildSummary(day: day) }
        lastRecomputedDates = dirtyDays.sorted().map { calendar.day(number: $0).date }
    }

    /// Throws every derived result away and recomputes it from the stored samples.
    public mutating func recomputeAll() {
        clusters = SleepSessionDetector.clusters(in: stages[...])
        stageEdges = nil
        for s in stages where s.isScored {
            stageEdges = (min(stageEdges?.first ?? s.start, s.start), max(stageEdges?.end ?? s.end, s.end))
        }
        sessionsByDay = [:]
        summaries = [:]
        let sessionDays = Set(clusters.filter(\.isSession).map { stopDay($0) })
        for day in sessionDays { rebuildSessions(day: day) }
        let allDays = sessionDays.union(dayBuckets.keys)
        for day in allDays { rebuildSummary(day: day) }
        lastRecomputedDates = allDays.sorted().map { calendar.day(number: $0).date }
    }

    // MARK: Day by day (see DayByDaySummarizer)

    /// The local day numbers that have a summary, ascending.
    var summarizedDayNumbers: [Int] { summaries.keys.sorted() }

    /// Local day `number` with its boundaries.
    mutating func localDay(_ number: Int) -> LocalDay { calendar.day(number: number) }

    /// The local day number containing `time`.
    func dayNumber(of time: Int64) -> Int { calendar.dayNumber(of: time) }

    /// The summary of day `number`, the sleep sessions ending on it (main sleep marked) and the
    /// night window its sleep HRV came from when it has no main sleep and its device does not
    /// stage sleep.
    func result(ofDay number: Int) -> (summary: DailySummary, sessions: [SleepSession], nightWindow: SessionWindow?)? {
        summaries[number].map { ($0, sessionsByDay[number] ?? [], nightWindows[number]) }
    }

    /// Whether a session ending on day `number` reaches the end of the scored stage data seen so
    /// far: it is truncated now, and stops being so if later stage data comes.
    mutating func hasSessionAtDataEnd(day number: Int) -> Bool {
        guard let edges = stageEdges else { return false }
        for cluster in clusters where cluster.isSession && cluster.lastSleepEnd >= edges.end {
            if stopDay(cluster) == number { return true }
        }
        return false
    }

    /// The earliest start of a sleep cluster that ends after `time` (nil: none).
    func earliestClusterStart(endingAfter time: Int64) -> Int64? {
        clusters.lazy.filter { $0.stop > time }.map(\.start).min()
    }

    /// Forgets the samples, beats and stage samples before `time` and the results of the days up to
    /// `lastDay`, which the caller has taken: memory then holds only the days still open. Days after
    /// `lastDay` must not need anything before `time` (their samples, their sessions' samples and
    /// beats, and the stage samples that session detection looks at around new data).
    mutating func forget(before time: Int64, daysThrough lastDay: Int) {
        for day in Array(dayBuckets.keys) where calendar.day(number: day).end <= time {
            for slot in dayBuckets[day] ?? [] { samplesByKey[SampleKey(start: slot.start, intervalSeconds: slot.intervalSeconds)] = nil }
            dayBuckets[day] = nil
            unsortedDays.remove(day)
            offsetsByDay[day] = nil
        }
        stages.removeFirst(stages.partitioningIndex { $0.start >= time })
        beats.removeFirst(beats.partitioningIndex { $0.timeMs >= time * 1000 })
        clusters.removeAll { $0.stop <= time }
        for day in Array(summaries.keys) where day <= lastDay { summaries[day] = nil; nightWindows[day] = nil }
        for day in Array(sessionsByDay.keys) where day <= lastDay { sessionsByDay[day] = nil }
        forgottenBefore = max(forgottenBefore, time)
    }

    // MARK: Internals

    /// Merges beats into the sorted, duplicate-free store (an existing beat with the same time wins);
    /// returns the beats that were new.
    private mutating func mergeBeats(_ input: [Beat]) -> [Beat] {
        guard !input.isEmpty else { return [] }
        // Beats read back from the store come sorted and unique: then they are used as they are
        // (two weeks of them are 6 MB, and each copy cost as much as the rest of the merge).
        var fresh = input
        if !zip(input, input.dropFirst()).allSatisfy({ $0.timeMs < $1.timeMs }) {
            fresh.sort { $0.timeMs < $1.timeMs }
            var unique: [Beat] = []
            unique.reserveCapacity(fresh.count)
            for beat in fresh where unique.last?.timeMs != beat.timeMs { unique.append(beat) }
            fresh = unique
        }
        if beats.isEmpty {
            beats = fresh
            return fresh
        }
        if let last = beats.last, let first = fresh.first, first.timeMs <= last.timeMs {
            var merged: [Beat] = []
            merged.reserveCapacity(beats.count + fresh.count)
            var accepted: [Beat] = []
            var i = 0
            var j = 0
            while i < beats.count || j < fresh.count {
                if j == fresh.count || (i < beats.count && beats[i].timeMs < fresh[j].timeMs) {
                    merged.append(beats[i]); i += 1
                } else if i < beats.count && beats[i].timeMs == fresh[j].timeMs {
                    merged.append(beats[i]); i += 1; j += 1
                } else {
                    merged.append(fresh[j]); accepted.append(fresh[j]); j += 1
                }
            }
            beats = merged
            return accepted
        }
        beats.append(contentsOf: fresh)
        return fresh
    }

    private mutating func stopDay(_ cluster: SleepCluster) -> Int {
        calendar.dayNumber(of: cluster.stop - 1)
    }

    private func clustersOverlapping(_ from: Int64, _ to: Int64) -> ArraySlice<SleepCluster> {
        var i = clusters.partitioningIndex { $0.stop > from }
        let first = i
        while i < clusters.count, clusters[i].start < to { i += 1 }
        return clusters[first..<i]
    }

    /// Re-detects the clusters near new stage samples; returns the stop days of every session that
    /// was removed or (re)created.
    private mutating func updateClusters(around newStages: [StageSample]) -> Set<Int> {
        let margin = Self.sessionMargin
        var lo = (newStages.map(\.start).min() ?? 0) - margin
        var hi = (newStages.map(\.end).max() ?? 0) + margin
        var changed = true
        while changed {
            changed = false
            for cluster in clustersOverlapping(lo, hi + 1) {
                if cluster.start - margin < lo { lo = cluster.start - margin; changed = true }
                if cluster.stop + margin > hi { hi = cluster.stop + margin; changed = true }
            }
        }
        if lo - 2 * margin < forgottenBefore { neededForgottenData = true }
        let from = stages.partitioningIndex { $0.start >= lo - 2 * margin }
        let to = stages.partitioningIndex { $0.start >= hi + 2 * margin }
        let fresh = SleepSessionDetector.clusters(in: stages[from..<to]).filter { $0.firstSleep >= lo && $0.firstSleep <= hi }
        let removed = clusters.filter { $0.firstSleep >= lo && $0.firstSleep <= hi }
        clusters.removeAll { $0.firstSleep >= lo && $0.firstSleep <= hi }
        clusters.append(contentsOf: fresh)
        clusters.sort { $0.start < $1.start }
        var days: Set<Int> = []
        for cluster in removed + fresh where cluster.isSession { days.insert(stopDay(cluster)) }
        return days
    }

    /// Rebuilds the sessions that end on `day` and marks the main sleep.
    private mutating func rebuildSessions(day: Int) {
        var sessions: [SleepSession] = []
        for cluster in clusters where cluster.isSession && stopDay(cluster) == day {
            let from = stages.partitioningIndex { $0.start >= cluster.start }
            let to = stages.partitioningIndex { $0.start >= cluster.stop }
            let truncated = stageEdges.map { cluster.firstSleep <= $0.first || cluster.lastSleepEnd >= $0.end } ?? true
            sessions.append(SleepSessionDetector.session(
                for: cluster, samples: stages[from..<to], recordDate: calendar.day(number: day).date,
                tzOffset: calendar.offset(at: cluster.stop - 1), truncated: truncated))
        }
        sessions.sort { $0.startSession < $1.startSession }
        // Main sleep: the longest whole session with at least 3 h of sleep (ties: the earlier).
        var main: Int?
        for (i, s) in sessions.enumerated()
        where !s.truncated && s.totalSleepDuration >= SleepSessionDetector.mainSleepMinimumSeconds
            && (main.map { s.totalSleepDuration > sessions[$0].totalSleepDuration } ?? true) {
            main = i
        }
        if let main { sessions[main].isMainSleep = true }
        sessionsByDay[day] = sessions.isEmpty ? nil : sessions
    }

    private mutating func sortedBucket(_ day: Int) -> [Slot] {
        if unsortedDays.remove(day) != nil {
            dayBuckets[day]?.sort { ($0.start, $0.intervalSeconds) < ($1.start, $1.intervalSeconds) }
        }
        return dayBuckets[day] ?? []
    }

    private mutating func rebuildSummary(day dayNumber: Int) {
        if let summarisedDays, !summarisedDays.contains(dayNumber) { return }
        let samples = sortedBucket(dayNumber)
        let sessions = sessionsByDay[dayNumber] ?? []
        guard !samples.isEmpty || !sessions.isEmpty else {
            summaries[dayNumber] = nil
            return
        }
        var mainInput: MainSleepInput?
        if let main = sessions.first(where: \.isMainSleep) {
            var inside: [Slot] = []
            let firstDay = calendar.dayNumber(of: main.startSession)
            let lastDay = calendar.dayNumber(of: main.stopSession - 1)
            if firstDay <= lastDay {
                for d in firstDay...lastDay {
                    for s in sortedBucket(d) where s.start >= main.startSession && s.start < main.stopSession { inside.append(s) }
                }
            }
            if let nightlyHRV {
                let window = SessionWindow(start: main.startSession, stop: main.stopSession)
                if nightlyHRV[window] == nil { missingNightlyHRV = true }
                mainInput = MainSleepInput(session: main, samples: inside, beats: [], hrv: nightlyHRV[window])
            } else {
                let from = beats.partitioningIndex { $0.timeMs >= main.startSession * 1000 }
                let to = beats.partitioningIndex { $0.timeMs >= main.stopSession * 1000 }
                mainInput = MainSleepInput(session: main, samples: inside, beats: Array(beats[from..<to]))
            }
        }
        let day = calendar.day(number: dayNumber)
        var nightHRV: NightlyHRV?
        nightWindows[dayNumber] = nil
        if mainInput == nil, let window = nightWindow(of: day, samples: samples) {
            nightWindows[dayNumber] = window
            if let nightlyHRV {
                if nightlyHRV[window] == nil { missingNightlyHRV = true }
                nightHRV = nightlyHRV[window]
            } else {
                let from = beats.partitioningIndex { $0.timeMs >= window.start * 1000 }
                let to = beats.partitioningIndex { $0.timeMs >= window.stop * 1000 }
                nightHRV = HRVAnalysis.nightly(Array(beats[from..<to]), start: window.start, stop: window.stop)
            }
        }
        summaries[dayNumber] = summarizer.summarize(day: day, samples: samples, mainSleep: mainInput, nightHRV: nightHRV, now: now)
    }

    /// Where a day's night window ends, as the local clock shows it: 00:00 to 06:00.
    static let nightWindowEndClock: Int64 = 6 * 3600

    /// The end of `day`'s night window: local 06:00 with the offset in force then, so the window
    /// is 5 h long on a spring-forward night and 7 h on a fall-back one (a fixed 6 h would end it
    /// at 07:00 or 05:00 local on those nights).
    func nightWindowStop(of day: LocalDay) -> Int64 {
        calendar.time(atClock: Self.nightWindowEndClock, on: day)
    }

    /// The night window of `day` (local 00:00 to 06:00, or the day's end if sooner) when a device
    /// that does not stage sleep (a standard sensor: no sample of the window carries a sleep stage)
    /// was worn in it with a heart rate; `nil` otherwise. `samples` are the day's, sorted.
    func nightWindow(of day: LocalDay, samples: [Slot]) -> SessionWindow? {
        let stop = nightWindowStop(of: day)
        var worn = false
        for s in samples {
            guard s.start < stop else { break }
            if s.sleepStage != nil { return nil }
            if s.bpm != nil, s.wearing.map({ $0 > 0 }) ?? true { worn = true }
        }
        return worn ? SessionWindow(start: day.start, stop: stop) : nil
    }
}

/// Identity of a sample: two samples with the same start and interval are the same sample; a 30 s
/// hypnogram sample and a 60 s slot starting at the same second are not.
struct SampleKey: Hashable, Sendable {
    var start: Int64
    var intervalSeconds: Int32
}

/// Collects diagnostics, keeping at most 20 of each kind plus a count of the rest.
struct DiagnosticCollector {
    private(set) var diagnostics: [SummaryDiagnostic] = []
    private var counts: [SummaryDiagnostic.Kind: Int] = [:]
    static let limitPerKind = 20

    mutating func add(_ d: SummaryDiagnostic) {
        let n = counts[d.kind, default: 0] + 1
        counts[d.kind] = n
        if n <= Self.limitPerKind {
            diagnostics.append(d)
        } else if n == Self.limitPerKind + 1 {
            diagnostics.append(SummaryDiagnostic(kind: d.kind, time: d.time, row: d.row, column: d.column, message:
                "more \(d.kind.rawValue) problems follow (only the first \(Self.limitPerKind) are listed); fix the ones above first"))
        }
    }
}

/// What is counted over a whole input rather than listed per sample: duplicate samples and the
/// beats dropped for their times. Reported after the per-sample diagnostics, in this order.
struct InputTally: Sendable {
    var duplicates = 0
    var firstDuplicate: Int64?
    var implausibleBeats = 0
    var futureBeat: Int64?

    /// Whether `beat` is kept: not more than 5 minutes after `now`, and inside
    /// ``SummaryEngine/plausibleTimes``.
    static func keeps(_ beat: Beat, now: Int64) -> Bool {
        beat.timeMs / 1000 <= now + 300 && SummaryEngine.plausibleTimes.contains(beat.timeMs / 1000)
    }

    /// Whether `beat` is kept (``keeps(_:now:)``); counts it otherwise.
    mutating func accepts(_ beat: Beat, now: Int64) -> Bool {
        if Self.keeps(beat, now: now) { return true }
        if beat.timeMs / 1000 > now + 300 {
            futureBeat = min(futureBeat ?? beat.timeMs, beat.timeMs)
        } else {
            implausibleBeats += 1
        }
        return false
    }

    /// Adds the counted diagnostics to `report`.
    func report(into report: inout DiagnosticCollector, now: Int64) {
        if duplicates > 0, let firstDuplicate {
            report.add(SummaryDiagnostic(kind: .duplicate, time: firstDuplicate, message:
                "\(duplicates) sample(s) were already stored (first at \(utcText(firstDuplicate))) and were ignored; nothing to do"))
        }
        if implausibleBeats > 0 {
            report.add(SummaryDiagnostic(kind: .implausibleTime, message:
                "\(implausibleBeats) beat(s) have times outside 2000...2100 and were dropped; the bracelet's clock was probably not set"))
        }
        if let futureBeat {
            report.add(SummaryDiagnostic(kind: .futureSample, time: futureBeat / 1000, message:
                "beats from \(utcText(futureBeat / 1000)) lie in the future (now is \(utcText(now))): they were dropped; set the bracelet's clock"))
        }
    }
}

/// The span of a sleep session, `[start, stop)` Unix seconds: the key of its HRV.
public struct SessionWindow: Hashable, Sendable, Comparable {
    /// Session start, Unix seconds.
    public var start: Int64
    /// Session stop, Unix seconds.
    public var stop: Int64

    /// The window `[start, stop)`.
    public init(start: Int64, stop: Int64) {
        self.start = start
        self.stop = stop
    }

    /// Orders windows by start.
    public static func < (lhs: SessionWindow, rhs: SessionWindow) -> Bool { (lhs.start, lhs.stop) < (rhs.start, rhs.stop) }
}

extension SummaryEngine {
    /// One-shot summary for the `bracelet summarize` command: adds everything, returns the document
    /// (all days, or only `date`) and the input diagnostics.
    public static func summarize(slots: [Slot], beats: [Beat] = [], configuration: SummaryConfiguration,
                                 date: String? = nil, sourceOffsetSeconds: Int? = nil,
                                 now: Int64 = Int64(Date().timeIntervalSince1970)) -> (document: SummaryDocument, diagnostics: [SummaryDiagnostic]) {
        var engine = SummaryEngine(configuration: configuration)
        let diagnostics = engine.add(slots: slots, beats: beats, sourceOffsetSeconds: sourceOffsetSeconds, now: now)
        return (engine.document(date: date), diagnostics)
    }
}
