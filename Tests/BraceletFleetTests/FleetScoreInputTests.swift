import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing
@testable import BraceletFleet

/// One UTC day of one-minute slots: walking (activity 2, 110 bpm) from 09:00 to 10:00, resting
/// (activity 7, 62 bpm) otherwise.
func syntheticDay(_ date: String = "2026-03-01") throws -> DailySummary {
    let start = Int64(try #require(LocalDate(iso: date)).dayNumber) * 86_400
    let slots = (0..<1_440).map { minute in
        var slot = Slot(start: start + Int64(minute) * 60, intervalSeconds: 60)
        let walking = (540..<600).contains(minute)
        slot.bpm = walking ? 110 : 62
        slot.bpmQuality = 4
        slot.steps = walking ? 100 : 0
        slot.activity = walking ? 2 : 7
        slot.wearing = 4
        return slot
    }
    let configuration = try SummaryConfiguration(age: 40)
    let (document, _) = SummaryEngine.summarize(slots: slots, configuration: configuration, date: date, now: start + 2 * 86_400)
    return try #require(document.days.first)
}

@Suite struct FleetScoreInputTests {
    @Test func theScoreInputGivesTheDayTheFullSummaryGivesInAFractionOfTheBytes() throws {
        let full = try syntheticDay()
        let input = DayScoreInput(summary: full)
        #expect(input.day(sleepSessions: []) == BraceletDay(summary: full, sleepSessions: []))
        #expect(input.movementMinutes == 60)
        #expect(input.summary.bpm.slots.isEmpty && input.summary.steps.slots.isEmpty)
        let stored = try input.text()
        let decoded = try JSONDecoder().decode(DayScoreInput.self, from: Data(stored.utf8))
        #expect(decoded.day(sleepSessions: []) == BraceletDay(summary: full, sleepSessions: []))
        #expect(stored.utf8.count * 10 < (try CanonicalJSON.bytes(of: full, what: "day")).count)
    }

    @Test func aPayloadThatIsNoDaySummaryHasNoScoreInput() {
        #expect(DayScoreInput(payload: Data(#"{"summary":{"steps":3}}"#.utf8)) == nil)
    }
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct FleetReaderTests {
    @Test func scoreReadsTheStoredInputAndAParticipantGetsTheDaysDeliveredBeforeTheAssignment() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        let sink = PostgresSink(server: server)
        let first = try syntheticDay("2026-03-01")
        let second = try syntheticDay("2026-03-02")
        // Day 1 is delivered while SN7 has no participant; day 2 after SN7 went to P-7.
        _ = try gateway.store.upsertDailySummary(device: "SN7", localDate: first.date, kind: "daily", value: first)
        let unstamped = try #require(try gateway.store.outboxEntries(state: .pending).first)
        #expect(unstamped.user == nil)
        #expect(sink.deliver(batch: [unstamped]) == [.delivered(httpStatus: nil)])
        try gateway.store.recordDelivered(entryID: unstamped.id, sink: sink.name, outcome: "delivered", httpStatus: nil, at: 1)
        try gateway.store.setUser("P-7", device: "SN7")
        _ = try gateway.store.upsertDailySummary(device: "SN7", localDate: second.date, kind: "daily", value: second)
        let pending = try gateway.store.outboxEntries(state: .pending)
        #expect(pending.count == 1 && pending.first?.user == "P-7")
        #expect(sink.deliver(batch: pending) == [.delivered(httpStatus: nil)])

        let stored = try PGConnection(server: server).execute(
            "SELECT count(*) FROM fleet_daily_summaries WHERE device = 'SN7' AND score_input IS NOT NULL").values
        #expect(stored == [["2"]])
        let reader = try FleetReader(server: server)
        #expect(try reader.days(of: .user("P-7")).map(\.date) == ["2026-03-01", "2026-03-02"])
        let expected = [first, second].map { summary in
            let (metrics, missing) = vitalityMetrics(for: BraceletDay(summary: summary, sleepSessions: [])!, age: 40)
            return DatedVitalityMetrics(date: LocalDate(iso: summary.date)!, metrics: metrics, missing: missing, coverage: summary.coverage)
        }
        #expect(try reader.vitalityDays(of: .user("P-7"), age: 40) == expected)
        #expect(try reader.vitalityDays(of: .device("SN7"), age: 40) == expected)
        // Another participant's reader sees none of them.
        #expect(try reader.vitalityDays(of: .user("P-8"), age: 40).isEmpty)
    }
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct FleetStatusTests {
    @Test func statusGivesEachDeviceItsDaysLastDayOldestGapAndSessions() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        for date in ["2026-03-01", "2026-03-02", "2026-03-04", "2026-03-06"] { try gateway.day("SN1", date, steps: 1) }
        try gateway.session("SN1", start: 1_772_400_000, date: "2026-03-02", minutes: 420)
        try gateway.store.setUser("P-1", device: "SN1")
        try gateway.session("SN2", start: 1_772_400_000, date: "2026-03-02", minutes: 60)
        #expect(PostgresSink(server: server).deliver(batch: try gateway.store.outboxEntries()).allSatisfy { $0 == .delivered(httpStatus: nil) })

        let status = try FleetReader(server: server).status()
        #expect(status.map(\.device) == ["SN1", "SN2"])
        #expect(status.map(\.user) == ["P-1", nil])
        #expect(status.map(\.days) == [4, 0])
        #expect(status.map(\.sleepSessions) == [1, 1])
        #expect(status.map(\.lastDay) == ["2026-03-06", nil])
        #expect(status.map(\.oldestGap) == ["2026-03-03", nil])
        #expect(status.allSatisfy { $0.lastSync.hasSuffix("Z") && $0.lastSync.count == 20 })
    }
}
