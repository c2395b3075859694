import Foundation
import Testing
import BraceletDecoder
import BraceletExport
import BraceletIngest
import BraceletSimulator
import BraceletStore
import BraceletSummaries
import BraceletVitality

/// `score --rook` of `export --format rook` equals `score --db` of the same database, window by
/// window: the export carries each day's coverage, so the partial first day and today are left
/// out of both.
@Suite struct ROOKRoundTripTests {
    /// What both sources must agree on. The breathing rate is left out: ROOK carries it in whole
    /// breaths/min (`breaths_avg_per_min_int`) and has no field for the day's average.
    struct Figures: Equatable {
        var start: LocalDate, end: LocalDate, daysWithAnyData: Int
        var skipped: [SkippedDay], notes: [String]
        var coverage: [FieldCoverage]
        var metrics: [VitalityField: Double]
        var hrvType: HRVType?
        var total: Double?, pillars: [VitalityPillar: Double?]

        init(_ report: ScoreReport) {
            let w = report.window
            start = w.start; end = w.end; daysWithAnyData = w.daysWithAnyData
            skipped = w.skippedDays; notes = w.notes
            coverage = w.coverage.filter { $0.field != .breathingRate }
            var metrics: [VitalityField: Double] = [:]
            for field in VitalityField.allCases where field != .breathingRate { metrics[field] = w.metrics.value(of: field) }
            self.metrics = metrics
            hrvType = w.metrics.hrvType
            total = report.scores.total
            pillars = Dictionary(uniqueKeysWithValues: report.scores.pillars.map { ($0.pillar, $0.score) })
        }
    }

    /// The stored days as `score --db` reads them and the ROOK file `export --format rook` writes.
    static func bothSources(_ store: Store, serial: String, zone: TimeZone, age: Int) throws -> (db: [DatedVitalityMetrics], rook: ROOKInputFile) {
        let db = try StoredVitalityMetrics.days(in: store, device: serial, age: age)
        let dataset = try ExportDataset.load(store: store, device: serial, from: nil, to: nil, timeZone: zone)
        return (db, try ROOKInputFile.decode(try ROOKExport.jsonData(dataset)))
    }

    static func scores(_ sources: (db: [DatedVitalityMetrics], rook: ROOKInputFile), age: Int,
                       _ builder: VitalityWindowBuilder) throws -> (db: ScoreReport, rook: ScoreReport) {
        (try ScoreReport.make(days: sources.db, age: age, builder: builder, source: "db"),
         try ScoreReport.make(rook: sources.rook, age: age, builder: builder, source: "rook"))
    }

    /// A temporary database, removed afterwards.
    static func withStore<T>(_ body: (Store) throws -> T) throws -> T {
        let path = Bundled.temporaryDatabase()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        return try body(try Store(path: path))
    }

    @Test func theBundledThreeDaysScoreAlikeFromTheDatabaseAndFromTheExport() throws {
        try Self.withStore { store in
            let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
            let configuration = try SummaryConfiguration(age: 35, timeZone: zone)
            _ = try IngestPipeline(store: store, configuration: configuration, age: 35)
                .ingest(VerifiedFile.files(of: try Bundled.replay("v2-three-days.btsnoop")))
            let serial = try #require(try store.devices().first?.serial)
            let sources = try Self.bothSources(store, serial: serial, zone: zone, age: 35)
            #expect(sources.rook.days.map { $0.coverage?.dayMinutes } == [1440, 1440, 1440])
            for (end, include) in [(nil, false), (LocalDate(iso: "2026-06-17"), false), (nil, true)] {
                let builder = VitalityWindowBuilder(length: 7, end: end, minimumDays: 1, includeIncompleteDays: include, now: 1_800_000_000)
                let (db, rook) = try Self.scores(sources, age: 35, builder)
                #expect(Figures(rook) == Figures(db), "end \(String(describing: end)) include \(include)")
                #expect(db.window.daysWithAnyData == (end == nil ? 3 : 2))
            }
        }
    }

    /// Eleven days and a bit in New York across the March 2026 change to daylight time, from
    /// 15:10 on 2 March to 09:30 on 13 March, summarised at 09:30 on 13 March ("today").
    static func longHistory(_ store: Store) throws -> (serial: String, zone: TimeZone, now: Int64) {
        let start: Int64 = 1_772_482_200 // 2026-03-02 15:10 EST
        let end: Int64 = 1_773_408_600   // 2026-03-13 09:30 EDT
        let model = try PhysiologyModel(model: .v2, serial: "ROOKEQ01", start: start, end: end, seed: 20_260_302,
                                        timeZoneIdentifier: "America/New_York")
        let beats = model.sleepPeriods.flatMap { model.beats(from: $0.start, to: $0.end) }
        let zone = try SummaryConfiguration.timeZone(named: "America/New_York")
        let configuration = try SummaryConfiguration(age: 40, timeZone: zone)
        _ = try IngestPipeline(store: store, configuration: configuration, age: 40)
            .ingest([VerifiedFile(serial: "ROOKEQ01", model: .v2, slots: model.slots(), beats: beats)])
        // As a history synchronised this morning is stored: the last day computed while it runs.
        let dates = try store.summaryDates(device: "ROOKEQ01")
        let today = SummaryRecomputer(configuration: configuration, age: 40, now: end)
        _ = try store.transaction { try today.recompute(device: "ROOKEQ01", dates: dates, store: store) }
        return ("ROOKEQ01", zone, end)
    }

    @Test func aLongerHistoryWithAPartialFirstDayAndTodayScoresAlikeInEveryWindow() throws {
        try Self.withStore { store in
            let (serial, zone, now) = try Self.longHistory(store)
            let sources = try Self.bothSources(store, serial: serial, zone: zone, age: 40)
            #expect(sources.rook.days.map(\.date.description) == (2...13).map { String(format: "2026-03-%02d", $0) })
            let marks = Dictionary(uniqueKeysWithValues: sources.rook.days.map { ($0.date.description, $0.coverage) })
            #expect(marks["2026-03-02"]??.isComplete == false)  // from 15:10
            #expect(marks["2026-03-08"]??.dayMinutes == 1380)   // the 23-hour day
            #expect(marks["2026-03-08"]??.isComplete == true)
            #expect(marks["2026-03-13"]??.isComplete == false)  // today, until 09:30
            let windows: [(end: String?, length: Int, withData: Int, skipped: [String])] = [
                (nil, 7, 7, ["2026-03-13"]),                        // the latest complete day, today listed as left out
                ("2026-03-13", 14, 10, ["2026-03-02", "2026-03-13"]), // both partial days inside the window
                ("2026-03-08", 7, 6, ["2026-03-02"]),               // the first day and the 23-hour day
            ]
            for window in windows {
                for later in [now + 60, now + 86_400] {               // still today, and once today is over
                    let builder = VitalityWindowBuilder(length: window.length, end: window.end.flatMap { LocalDate(iso: $0) },
                                                        minimumDays: 1, now: later)
                    let (db, rook) = try Self.scores(sources, age: 40, builder)
                    let label = "window ending \(window.end ?? "latest"), \(window.length) days, at \(later)"
                    #expect(Figures(rook) == Figures(db), "\(label)")
                    #expect(db.window.daysWithAnyData == window.withData, "\(label)")
                    #expect(rook.window.skippedDays.map(\.date.description) == window.skipped, "\(label)")
                    #expect(rook.window.metrics.steps == db.window.metrics.steps, "\(label)")
                    #expect(db.window.metrics.steps != nil && db.window.metrics.sleepDurationHours != nil)
                }
            }
            // Without the marks, the partial days count as whole ones: the disagreement this prevents.
            let unmarked = ROOKInputFile(days: sources.rook.days.map { var d = $0; d.coverage = nil; return d })
            let builder = VitalityWindowBuilder(length: 14, end: LocalDate(iso: "2026-03-13"), minimumDays: 1, now: now + 60)
            let db = try ScoreReport.make(days: sources.db, age: 40, builder: builder, source: "db")
            let old = try ScoreReport.make(rook: unmarked, age: 40, builder: builder, source: "rook")
            #expect(old.window.daysWithAnyData == 12)
            #expect(db.window.daysWithAnyData == 10)
            #expect(old.window.metrics.steps != db.window.metrics.steps)
        }
    }
}
