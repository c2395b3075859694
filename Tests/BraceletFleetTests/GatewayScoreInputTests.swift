import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing
@testable import BraceletFleet

/// From 2026-02-28 20:00 UTC to 2026-03-03 00:00 UTC, one-minute slots: nights from 23:00 to
/// 07:00 (half an hour awake at either end, then light, deep and REM in half-hour blocks), in bed
/// and at 55 bpm; an hour's walk at 09:00 (110 bpm); resting at 62 bpm otherwise.
func syntheticNightsAndDays() throws -> [Slot] {
    wornSlots(start: Int64(try #require(LocalDate(iso: "2026-02-28")).dayNumber) * 86_400 + 20 * 3600, minutes: 52 * 60)
}

/// `minutes` one-minute slots from `start` (Unix s) of a participant wearing the bracelet, by UTC
/// clock: nights from 23:00 to 07:00 (half an hour awake at either end, then light, deep and REM in
/// half-hour blocks) at 55 bpm, an hour's walk at 09:00 (110 bpm), resting at 62 bpm otherwise. The
/// slots starting in `offWrist` lie off the wrist (recorded, wearing 0, no heart rate); those in
/// `silent` are not recorded at all.
func wornSlots(start: Int64, minutes: Int, offWrist: Range<Int64> = 0..<0, silent: Range<Int64> = 0..<0) -> [Slot] {
    (0..<minutes).compactMap { index in
        let time = start + Int64(index) * 60
        guard !silent.contains(time) else { return nil }
        var slot = Slot(start: time, intervalSeconds: 60)
        guard !offWrist.contains(time) else {
            slot.wearing = 0
            slot.activity = 0
            slot.steps = 0
            return slot
        }
        let minuteOfDay = Int((time % 86_400) / 60)
        slot.bpmQuality = 4
        slot.wearing = 4
        let night = minuteOfDay >= 23 * 60 || minuteOfDay < 7 * 60
        if night {
            let sinceBed = (minuteOfDay - 23 * 60 + 1_440) % 1_440
            slot.sleepStage = sinceBed < 30 || sinceBed >= 450 ? 1 : [2, 3, 4][(sinceBed / 30) % 3]
            slot.activity = 7
            slot.bpm = 55
            slot.steps = 0
        } else {
            let walking = (540..<600).contains(minuteOfDay)
            slot.activity = walking ? 2 : 1
            slot.bpm = walking ? 110 : 62
            slot.steps = walking ? 100 : 0
        }
        return slot
    }
}

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct GatewayScoreInputTests {
    /// The gateway makes each entry's score input when it computes the summary; the server stores
    /// it beside the payload, and the fleet's vitality days equal what `score --db` reads on the
    /// gateway (its stored vitality rows) and what the payloads alone give.
    @Test func theGatewaysScoreInputsGiveTheFleetTheGatewaysOwnVitalityDays() async throws {
        let cluster = try TestCluster()
        let server = try FleetServer(uri: cluster.url)
        let gateway = try GatewayDatabase()
        let slots = try syntheticNightsAndDays()
        _ = try gateway.store.insertSlots(slots, device: "SN9", model: nil)
        let recomputer = SummaryRecomputer(configuration: try SummaryConfiguration(age: 40), age: 40,
                                           now: (slots.last?.start ?? 0) + 4 * 86_400)
        let report = try recomputer.recompute(device: "SN9", dates: ["2026-03-01", "2026-03-02"], store: gateway.store)
        #expect(report.changedSummaries == 2)
        #expect(report.changedSleepSessions >= 2)

        let entries = try gateway.store.outboxEntries(state: .pending)
        #expect(entries.count == report.changedSummaries + report.changedSleepSessions)
        for entry in entries {
            let input = try #require(entry.scoreInput, "\(entry.key) has no score input")
            // A few kB against the whole document.
            #expect(input.utf8.count * 5 < entry.payload.count, "\(entry.key)")
        }
        let session = try #require(entries.first { $0.kind == "sleep_session" }?.scoreInput)
        let lean = try JSONDecoder().decode(SleepSession.self, from: Data(session.utf8))
        #expect(lean.slots.isEmpty && lean.totalSleepDuration > 3 * 3600)

        #expect(PostgresSink(server: server).deliver(batch: entries).allSatisfy { $0 == .delivered(httpStatus: nil) })
        let stored = try PGConnection(server: server).execute("""
            SELECT (SELECT count(*) FROM fleet_daily_summaries WHERE score_input IS NOT NULL),
                   (SELECT count(*) FROM fleet_sleep_sessions WHERE score_input IS NOT NULL)
            """).values
        #expect(stored == [[String(report.changedSummaries), String(report.changedSleepSessions)]])

        // What score --db reads: the gateway's stored vitality rows.
        let gatewayDays = try gateway.store.vitalityMetrics(device: "SN9", fromDate: "2026-03-01", toDate: "2026-03-02")
            .map { try StoredVitalityMetrics.decode(localDate: $0.localDate, json: $0.json, age: 40) }
        let reader = try FleetReader(server: server)
        let fleetDays = try reader.vitalityDays(of: .device("SN9"), age: 40)
        #expect(fleetDays.map(\.date) == gatewayDays.map(\.date))
        #expect(fleetDays.map(\.metrics) == gatewayDays.map(\.metrics))
        #expect(fleetDays.map(\.coverage) == gatewayDays.map(\.coverage))
        #expect(fleetDays.contains { $0.metrics.sleepDurationHours != nil })

        // Rows delivered without score inputs are read from their payloads, to the same days.
        try PGConnection(server: server).execute("UPDATE fleet_daily_summaries SET score_input = NULL")
        try PGConnection(server: server).execute("UPDATE fleet_sleep_sessions SET score_input = NULL")
        #expect(try reader.vitalityDays(of: .device("SN9"), age: 40) == fleetDays)
    }
}
