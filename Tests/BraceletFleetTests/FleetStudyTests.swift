import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation
import Testing
@testable import BraceletFleet

@Suite(.serialized, .enabled(if: TestCluster.available, TestCluster.skipReason))
struct FleetStudyTests {
    /// Three devices delivered by their gateway's role, read back by a reader role: the study
    /// overview's days equal the coverage of the day summaries the fleet holds (what `summarize
    /// --postgres` prints) and the gateway database's own study days, a day never delivered is
    /// missing, and "scorable" is `score --postgres`'s verdict (the fleet's vitality days through
    /// `ScoreReport`) and the gateway's own, for a device that scores and two that do not.
    @Test func theFleetsStudyPageEqualsWhatItsSummariesAndScoreSay() throws {
        let cluster = try TestCluster()
        let owner = try FleetServer(uri: cluster.url)
        let admin = try FleetAdmin(server: owner)
        _ = try admin.migrate()
        let gatewayRole = try cluster.server(as: try admin.addGateway("gw_study"))
        let reader = try cluster.server(as: try admin.addReader("rd_study"))
        let gateway = try GatewayDatabase()
        // Nine days from 2026-03-01; B off the wrist from 06:00 to 18:00 on 2026-03-05, C silent from 2026-03-05 to 2026-03-08.
        let march1 = Int64(try #require(LocalDate(iso: "2026-03-01")).dayNumber) * 86_400, day = Int64(86_400)
        let devices: [(serial: String, user: String, slots: [Slot])] = [
            ("STA00001", "P-A", wornSlots(start: march1, minutes: 9 * 1_440)),
            ("STB00001", "P-B", wornSlots(start: march1, minutes: 9 * 1_440, offWrist: (march1 + 4 * day + 6 * 3_600)..<(march1 + 4 * day + 18 * 3_600))),
            ("STC00001", "P-C", wornSlots(start: march1, minutes: 9 * 1_440, silent: (march1 + 4 * day)..<(march1 + 8 * day))),
        ]
        let dates = (1...9).map { String(format: "2026-03-%02d", $0) }
        let now = Int64(try #require(LocalDate(iso: "2026-04-01")).dayNumber) * 86_400
        for device in devices {
            #expect(try admin.assign(device: device.serial, gateway: "gw_study") == nil)
            _ = try gateway.store.insertSlots(device.slots, device: device.serial, model: nil)
            _ = try gateway.store.setUser(device.user, device: device.serial)
            let recomputer = SummaryRecomputer(configuration: try SummaryConfiguration(age: 40), age: 40, now: now)
            _ = try recomputer.recompute(device: device.serial, dates: dates, store: gateway.store)
        }
        let entries = try gateway.store.outboxEntries(state: .pending)
        #expect(PostgresSink(server: gatewayRole).deliver(batch: entries).allSatisfy { $0 == .delivered(httpStatus: nil) })

        let from = try #require(LocalDate(iso: "2026-02-27")), to = try #require(LocalDate(iso: "2026-03-10"))
        let fleetReader = try FleetReader(server: reader)
        let overview = try fleetReader.studyOverview(from: from, to: to, now: now, source: "test", batch: 2)
        #expect(overview.participants.map(\.device) == devices.map(\.serial))
        #expect(overview.participants.map(\.user) == devices.map(\.user))
        // Delivered without a gateway's status (a batch, not a gateway's delivery): no health, no sinks.
        #expect(overview.origin == .fleet && overview.sinks.isEmpty && overview.participants.allSatisfy { $0.health == nil && $0.lastDeliveryAt != nil })
        for participant in overview.participants {
            // The days: each delivered summary's coverage, as summarize --postgres prints it.
            let summaries = try fleetReader.days(of: .device(participant.device), fromDate: from.description, toDate: to.description)
            let coverage = Dictionary(uniqueKeysWithValues: summaries.map { ($0.date, $0.coverage) })
            #expect(participant.days.map(\.date) == overview.dates)
            for day in participant.days {
                if let known = coverage[day.date.description] {
                    #expect(day.recordedMinutes == known.recordedMinutes && day.wornMinutes == known.wornMinutes
                            && day.dayMinutes == known.dayMinutes, "\(participant.device) \(day.date)")
                    #expect(day.state == (known.isComplete(at: now) ? .complete : .incomplete))
                } else {
                    #expect(day.state == .missing && day.wornMinutes == nil, "\(participant.device) \(day.date)")
                }
            }
            // The gateway's database says the same of every day and of the window.
            let local = try StudyParticipant.days(in: gateway.store, device: participant.device, dates: overview.dates,
                                                  zone: try #require(TimeZone(identifier: "UTC")), now: now, age: 40)
            #expect(participant.days == local.days)
            #expect(participant.scoring == local.scoring)
            // Scorable: score --postgres --device --end's verdict.
            #expect(participant.scoring.end.description == "2026-03-10")
            let builder = VitalityWindowBuilder(length: 7, end: participant.scoring.end, now: now)
            let scored = try? ScoreReport.make(days: try fleetReader.vitalityDays(of: .device(participant.device), age: 40), age: 40,
                                               builder: builder, source: "test")
            #expect((scored != nil) == participant.scoring.scorable, "\(participant.device): \(participant.scoring)")
        }
        let byDevice = Dictionary(uniqueKeysWithValues: overview.participants.map { ($0.device, $0) })
        #expect(byDevice["STA00001"]?.scoring.scorable == true)
        #expect(byDevice["STC00001"]?.scoring.scorable == false)
        // The morning off the wrist: the whole day recorded, half of it worn.
        let offDay = try #require(byDevice["STB00001"]?.days.first { $0.date.description == "2026-03-05" })
        #expect(offDay.state == .complete && offDay.recordedMinutes == 1_440 && offDay.wornMinutes == 720)
        // The silent days and the days before any data are missing; 2026-03-10 has no slot either.
        #expect(byDevice["STC00001"]?.days.filter { $0.state == .missing }.map(\.date.description)
                == ["2026-02-27", "2026-02-28", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-10"])
        #expect(byDevice["STC00001"]?.attention.contains("no data on 2026-03-10") == true)
    }
}
