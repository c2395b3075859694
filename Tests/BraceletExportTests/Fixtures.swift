import BraceletExport
import BraceletSummaries
import Foundation

/// A daylight-saving day in New York (2026-03-08, 23 hours: 00:00 EST = 05:00 UTC to 00:00 EDT =
/// 04:00 UTC next day) with heart rate, breath, skin and core temperature and a main sleep, and no
/// SpO2 (a V1 day): the values the mapping tests look for.
enum Fixture {
    static let dayStart: Int64 = 1_772_946_000
    static let dayEnd: Int64 = 1_773_028_800
    /// 07:30 UTC = 03:30 EDT, just after the change.
    static let slot: Int64 = 1_772_955_000
    static let sleepStart: Int64 = 1_772_938_800
    static let sleepStop: Int64 = 1_772_967_600

    static let dayJSON = """
    {"date": "2026-03-08", "dayStart": \(dayStart), "dayEnd": \(dayEnd),
     "bpm": {"averageBPM": 61, "minDayBPM": 48, "maxDayBPM": 131, "dailyRestingBPM": 52, "sleepRestingBPM": 50,
             "zoneThresholds": {"t50": 93, "t60": 112, "t70": 130, "t80": 149, "t90": 167},
             "slots": [{"intervalDate": \(slot), "bpm": 58}, {"intervalDate": \(slot + 60), "bpm": 60}]},
     "breath": {"averageBreath": 15, "minDayBreath": 11, "maxDayBreath": 21, "sleepBreathRate": 13.6,
                "slots": [{"intervalDate": \(slot), "brpm": 14, "brpmQ": 3}]},
     "steps": {"stepCount": 8421, "stepDistance": 6043.5, "stepCalories": 2105.5, "workouts": [],
               "slots": [{"intervalDate": \(slot + 60), "stepCount": 12, "activityType": 2}]},
     "activity": {"steps": 8421, "calories": 402.25, "slots": []},
     "bodyTemp": {"averageTemp": 33.8, "maxDayTemp": 35.1, "slots": [{"intervalDate": \(slot), "temp": 34.25}]},
     "coreBodyTemperature": {"averageCoreBodyTemperature": 36.9, "slots": []},
     "spo2": {"slots": []},
     "emography": {"slots": []},
     "sleepHRV": {"rmssdMs": 41.5, "sdnnMs": 55.25, "validWindows": 40, "windowsWithBeats": 42},
     "mainSleepStart": \(sleepStart),
     "coverage": {"dayEnd": \(dayEnd), "dayMinutes": 1380, "recordedMinutes": 1380, "wornMinutes": 1300,
                  "dayIsOver": true, "isComplete": true},
     "diagnostics": {"outOfRange": []}}
    """

    static let sessionJSON = """
    {"recordDate": "2026-03-08", "startSession": \(sleepStart), "stopSession": \(sleepStop), "tzOffset": -14400,
     "totalSleepDuration": 27000, "timeToSleep": 600, "timeToWakeUp": 1200, "totalSecsLight": 14400, "totalSecsDeep": 6000,
     "totalSecsAwake": 1800, "totalSecsREM": 6600, "totalDeepToLightTransitions": 3, "totalDeepToREMTransitions": 1,
     "totalLightToDeepTransitions": 4, "totalLightToREMTransitions": 3, "totalREMToDeepTransitions": 0,
     "totalREMToLightTransitions": 2, "totalSleepToAwakeTransitions": 2, "totalAwakeToSleepTransitions": 2,
     "timeInBed": 28800, "wakeAfterSleepOnset": 0, "sleepEfficiency": 94, "restorativeSleepPercent": 47, "awakePercent": 6,
     "isMainSleep": true, "truncated": false,
     "slots": [{"date": \(sleepStart), "intervalSeconds": 600, "sleepType": 1},
               {"date": \(sleepStart + 600), "intervalSeconds": 1800, "sleepType": 2},
               {"date": \(sleepStart + 2400), "intervalSeconds": 1800, "sleepType": 2},
               {"date": \(sleepStart + 4200), "intervalSeconds": 3600, "sleepType": 3},
               {"date": \(sleepStart + 7800), "intervalSeconds": 600, "sleepType": 0},
               {"date": \(sleepStart + 8400), "intervalSeconds": 1800, "sleepType": 4}]}
    """

    static var day: DailySummary { get throws { try JSONDecoder().decode(DailySummary.self, from: Data(dayJSON.utf8)) } }
    static var session: SleepSession { get throws { try JSONDecoder().decode(SleepSession.self, from: Data(sessionJSON.utf8)) } }

    static var newYork: TimeZone { TimeZone(identifier: "America/New_York")! }

    static func dataset() throws -> ExportDataset {
        let day = try Self.day
        let clock = try ExportClock.resolve(days: [day], requested: newYork)
        return ExportDataset(device: "V2TEST01", model: "V2", clock: clock,
                             days: [ExportDay(summary: day, sleepSessions: [try session])], slotSeconds: 60)
    }

    /// The JSON of `value` parsed back into Foundation objects, to look into.
    static func parsed(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }
}
