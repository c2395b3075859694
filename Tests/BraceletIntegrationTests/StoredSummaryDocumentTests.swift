import Foundation
import Testing
import BraceletDecoder
import BraceletIngest
import BraceletStore
import BraceletSummaries
import BraceletVitality

private func withIngested<T>(_ capture: String, zone: String, age: Int?, _ body: (Store, SummaryConfiguration, String) throws -> T) throws -> T {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let replayed = try Bundled.replay(capture)
    let configuration = try SummaryConfiguration(age: age, timeZone: try SummaryConfiguration.timeZone(named: zone))
    _ = try IngestPipeline(store: store, configuration: configuration, age: age).ingest(VerifiedFile.files(of: replayed))
    let serial = try #require(try store.devices().first?.serial)
    return try body(store, configuration, serial)
}

/// What `summarize --db` printed before it read stored summaries: the document recomputed from every stored row.
private func recomputed(_ store: Store, _ serial: String, _ configuration: SummaryConfiguration, date: String? = nil) throws -> [UInt8] {
    let slots = try store.slots(device: serial, from: Int64.min / 2, to: Int64.max / 2)
    let beats = try store.beats(device: serial, fromMs: Int64.min / 2, toMs: Int64.max / 2)
    let (document, _) = SummaryEngine.summarize(slots: slots, beats: beats, configuration: configuration, date: date)
    return [UInt8](try document.jsonData(prettyPrinted: true))
}

@Test(arguments: [("v2-three-days.btsnoop", "America/New_York", 35), ("v1-day.btsnoop", "Europe/Amsterdam", 40),
                  ("v2-daylight-saving.btsnoop", "Europe/Amsterdam", 35)])
func theStoredDocumentIsByteForByteTheRecomputedOne(capture: String, zone: String, age: Int) throws {
    try withIngested(capture, zone: zone, age: age) { store, configuration, serial in
        let stored = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration).get()
        #expect(!stored.days.isEmpty && !stored.sleepSessions.isEmpty)
        let expected = try recomputed(store, serial, configuration)
        let got = try stored.prettyJSON()
        #expect(got.count == expected.count)
        #expect(got == expected)
        #expect(try stored.decoded() == JSONDecoder().decode(SummaryDocument.self, from: Data(expected)))
        let date = try #require(stored.days.last?.localDate)
        let one = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration, date: date).get()
        #expect(one.days.map(\.localDate) == [date])
        #expect(try one.prettyJSON() == (try recomputed(store, serial, configuration, date: date)))
    }
}

@Test func storedSummariesOfOtherSettingsOrAnUnfinishedDayAreNotServed() throws {
    try withIngested("v2-three-days.btsnoop", zone: "America/New_York", age: 35) { store, configuration, serial in
        let older = try SummaryConfiguration(age: 60, timeZone: configuration.timeZone)
        guard case .failure(.otherSettings) = try StoredSummaryDocument.load(from: store, device: serial, configuration: older) else {
            Issue.record("summaries computed for age 35 were served for age 60")
            return
        }
        let utc = try SummaryConfiguration(age: 35, timeZone: try SummaryConfiguration.timeZone(named: "UTC"))
        guard case .failure(.otherSettings) = try StoredSummaryDocument.load(from: store, device: serial, configuration: utc) else {
            Issue.record("summaries cut in New York were served for UTC days")
            return
        }
        #expect(try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration, date: "1999-01-01")
                    == .failure(.noSummaries))

        // Recomputed while its last day was still running: stale once that day is over.
        let last = try #require(try store.summaryDates(device: serial).last)
        let range = try #require(LocalDates.unixSecondsRange(of: last, in: configuration.timeZone))
        let early = SummaryRecomputer(configuration: configuration, age: 35, now: range.upperBound - 60)
        _ = try store.transaction { try early.recompute(device: serial, dates: [last], store: store) }
        let later = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration, now: range.upperBound + 1)
        #expect(later == .failure(.computedBeforeDayEnded(date: last)))
        let sameMoment = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration, now: range.upperBound - 30)
        #expect((try? sameMoment.get()) != nil)
    }
}

@Test func aSleepSessionNoLongerProducedIsNotServedAndSummariesWithoutStampsAreNot() throws {
    let path = Bundled.temporaryDatabase()
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let store = try Store(path: path)
    let configuration = try SummaryConfiguration(age: 35)
    let json = Data(#"{"recordDate":"2026-06-17"}"#.utf8)
    _ = try store.upsertSleepSession(device: "SN1", start: 100, stop: 200, localDate: "2026-06-17", json: json,
                                     basis: configuration.summaryBasis)
    #expect(try store.currentSleepSessions(device: "SN1", basis: configuration.summaryBasis).map(\.start) == [100])
    try store.supersedeSleepSessions(device: "SN1", localDate: "2026-06-17")
    #expect(try store.currentSleepSessions(device: "SN1", basis: configuration.summaryBasis).isEmpty)

    // A summary written without a stamp (as before stamps existed) is never served.
    _ = try store.upsertDailySummary(device: "SN1", localDate: "2026-06-17", kind: SummaryRecomputer.dailyKind, json: Data(#"{"date":"2026-06-17"}"#.utf8))
    #expect(try StoredSummaryDocument.load(from: store, device: "SN1", configuration: configuration) == .failure(.unstamped(date: "2026-06-17")))
}

@Test func aStoredSummaryWhoseDateWasChangedIsAnErrorNotAMisplacedDay() throws {
    try withIngested("v1-day.btsnoop", zone: "Europe/Amsterdam", age: 40) { store, configuration, serial in
        let first = try #require(try store.summaryDates(device: serial).first)
        try Database(path: store.path).execute("UPDATE daily_summaries SET local_date = '2001-01-01' WHERE local_date = '\(first)'")
        // The rows' stamps are in order, so the document loads; the changed day fails when it is read.
        let stored = try StoredSummaryDocument.load(from: store, device: serial, configuration: configuration).get()
        #expect(stored.days.first?.localDate == "2001-01-01")
        #expect(throws: StoreError.self) { try stored.prettyJSON() }
    }
}
