import ArgumentParser
import Testing
@testable import BraceletCLI

/// `bracelet score --help` says exactly which ROOK keys are read, with the ROOK SDK's names.
@Suite struct ScoreHelpTests {
    @Test func theHelpListsTheROOKKeysReadInBothSpellings() {
        let help = ScoreCommand.helpMessage(columns: 10_000)
        for pair in ["sleep_duration_seconds_int/sleepDurationSeconds", "time_in_bed_seconds_int/timeInBedSeconds",
                     "hrv_sdnn_ms_double/hrvAvgSdnnNumber", "hrv_rmssd_ms_double/hrvAvgRmssdNumber",
                     "hr_resting_bpm_int/hrRestingBPM", "breaths_avg_per_min_int/breathsAvgPerMin",
                     "steps_int/stepsPerDayNumber", "active_seconds_int/activeSeconds",
                     "active_calories_kcal_double/caloriesNetActiveKilocalories", "hrv_sdnn_avg_ms/hrvAvgSdnnNumber",
                     "type/activityTypeName", "duration_seconds_int/activityDurationSeconds"] {
            #expect(help.contains(pair), "\(pair)")
        }
        #expect(help.contains("coverage (written by bracelet export): day_end, day_minutes, recorded_minutes"))
        #expect(help.contains("any other key is an error naming the nearest accepted spelling"))
        #expect(!help.contains("unknown keys are warned about"))
    }
}
