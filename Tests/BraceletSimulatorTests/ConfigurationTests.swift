import BraceletDecoder
import BraceletSimulator
import Testing

@Suite struct ConfigurationTests {
    private func make(serial: String = "SIM00001", start: Int64 = 1_781_474_400, end: Int64 = 1_781_560_800,
                      interval: Int32 = 60, zone: String = "Europe/Amsterdam", person: PersonProfile = .typicalAdult,
                      schedule: DailySchedule = .typical) throws(PhysiologyModelError) -> PhysiologyModel {
        try PhysiologyModel(model: .v2, serial: serial, start: start, end: end, slotIntervalSeconds: interval,
                            seed: 3, timeZoneIdentifier: zone, person: person, schedule: schedule)
    }

    @Test func badConfigurationIsRejectedWithItsOwnError() throws {
        #expect(throws: PhysiologyModelError.unknownTimeZone("Mars/Olympus_Mons")) {
            try make(zone: "Mars/Olympus_Mons")
        }
        #expect(throws: PhysiologyModelError.slotIntervalOutOfRange(0)) { try make(interval: 0) }
        #expect(throws: PhysiologyModelError.slotIntervalOutOfRange(3_601)) { try make(interval: 3_601) }
        #expect(throws: PhysiologyModelError.emptyTimeRange(start: 100, end: 100)) { try make(start: 100, end: 100) }
        #expect(throws: PhysiologyModelError.timeRangeTooLong(seconds: 401 * 86_400)) {
            try make(start: 0, end: 401 * 86_400)
        }
        #expect(throws: PhysiologyModelError.invalidSerial("")) { try make(serial: "") }
        #expect(throws: PhysiologyModelError.invalidSerial("SERIAL123")) { try make(serial: "SERIAL123") }
        var person = PersonProfile.typicalAdult
        person.restingHeartRate = 20
        #expect(throws: PhysiologyModelError.invalidPerson("resting heart rate 20 bpm is outside 35...100")) {
            try make(person: person)
        }
        var schedule = DailySchedule.typical
        schedule.bedtime = LocalTime(hour: 25)
        #expect(throws: PhysiologyModelError.invalidSchedule(
            "bedtime 25:0 is not a time of day (hour 0...23, minute 0...59)")) { try make(schedule: schedule) }
        #expect(throws: PhysiologyModelError.dayCountOutOfRange(0)) {
            try PhysiologyModel(model: .v1, serial: "S", start: 0, days: 0, seed: 1, timeZoneIdentifier: "UTC")
        }
    }

    @Test func errorMessagesSayWhatWasWrongAndWhatToDo() {
        let zone = PhysiologyModelError.unknownTimeZone("Mars/Olympus_Mons").description
        #expect(zone.contains("Mars/Olympus_Mons") && zone.contains("Europe/Amsterdam"))
        let interval = PhysiologyModelError.slotIntervalOutOfRange(0).description
        #expect(interval.contains("0 s") && interval.contains("1...3600"))
    }

    @Test func longerSlotsSumStepsAndEnergy() throws {
        var schedule = DailySchedule.typical
        schedule.periods = [ScheduledPeriod(.walk, at: LocalTime(hour: 12), minutes: 60)]
        schedule.jitterMinutes = 0
        let fiveMinutes = try make(interval: 300, schedule: schedule)
        #expect(fiveMinutes.slotCount == 288)
        let walk = try #require(fiveMinutes.activities.first)
        let inside = fiveMinutes.slots(from: walk.start + 600, to: walk.end - 600)
            .filter { $0.start + 300 <= walk.end - 300 }
        #expect(inside.count >= 8)
        // ~100 steps per minute for 5 minutes; (3.5 - 1) MET x 72 kg x 5/60 h = 15 kcal active.
        #expect(inside.allSatisfy { (450...550).contains($0.steps ?? 0) && $0.activeCal == 15_000 && $0.activity == 2 })
        let hourly = try make(interval: 3_600)
        #expect(hourly.slotCount == 24)
        #expect(hourly.slots().allSatisfy { $0.intervalSeconds == 3_600 })
    }

    @Test func simulatedHistoryEndsAtTheGivenTime() throws {
        let model = try PhysiologyModel.simulatedHistory(model: .v1, serial: "SIM00001", days: 30, seed: 9,
                                                         endingAt: 1_800_000_059)
        #expect(model.end == 1_800_000_000)
        #expect(model.start == 1_800_000_000 - 30 * 86_400)
        #expect(model.slotCount == 43_200)
        #expect(model.activities.filter { $0.kind == .run }.count == 10)  // days 1, 4, ..., 28
        // 1_800_000_000 is 2027-01-15 09:00 CET, so the range runs 09:00 to 09:00: the night before the
        // start ended at ~07:00 and is out; the 30 nights starting on days 0 ... 29 are in.
        #expect(model.sleepPeriods.filter { $0.kind == .night }.count == 30)
    }
}
