/// The ROOK SDK's own field names (iOS `RookSDK`: `RookSleepSummary`, `RookPhysicalSummary`,
/// `RookActivityEvent`, every field of each model), so a file written from the SDK's objects is read
/// as it is. Each read field maps to the snake_case key it is read as; the SDK's other fields
/// (granular series, dates, scores the mapping does not use) are recognised and not used, so a
/// whole SDK object is accepted, while a key in neither list is still an error.
enum ROOKSDKNames {
    /// The SDK sleep summary (`getSleepSummary`) names read, with the key each is read as.
    static let sleep: [(sdk: String, key: String)] = [
        ("sleepDurationSeconds", "sleep_duration_seconds_int"),
        ("timeInBedSeconds", "time_in_bed_seconds_int"),
        ("timeAwakeDuringSleepSeconds", "time_awake_during_sleep_seconds_int"),
        ("remSleepDurationSeconds", "rem_sleep_duration_seconds_int"),
        ("deepSleepDurationSeconds", "deep_sleep_duration_seconds_int"),
        ("lightSleepDurationSeconds", "light_sleep_duration_seconds_int"),
        ("sleepEfficiency1_100_Score", "sleep_efficiency_1_100_score_int"),
        ("hrvAvgSdnnNumber", "hrv_sdnn_ms_double"),
        ("hrvAvgRmssdNumber", "hrv_rmssd_ms_double"),
        ("hrRestingBPM", "hr_resting_bpm_int"),
        ("breathsAvgPerMin", "breaths_avg_per_min_int"),
    ]
    /// The SDK sleep summary fields not read (39 of 50).
    static let sleepUnused: Set<String> = [
        "datetime", "sourceOfData", "sleepHealthScore", "sleepStartDatetime", "sleepEndDatetime", "sleepDate",
        "timeToFallAsleepSeconds", "sleepQualityRating1_5_Score", "sleepGoalSeconds", "sleepContinuity1_5_Score",
        "sleepContinuity1_5_Rating", "hrMaxBPM", "hrMinimumBPM", "hrAvgBPM", "hrBasalBPM", "hrGranularDataBPM",
        "hrvSdnnGranularData", "hrvRmssdGranularData", "temperatureMinimumCelsius", "temperatureAvgCelsius",
        "temperatureMaxCelsius", "temperatureGranularDataCelsius", "temperatureDeltaCelsius", "breathsMinimumPerMin",
        "breathsMaxPerMin", "breathingGranularDataBreathsPerMin", "snoringEventsCountNumber",
        "snoringDurationTotalSeconds", "snoringGranularDataSnores", "saturationAvgPercentage",
        "saturationGranularDataPercentage", "saturationMinPercentage", "saturationMaxPercentage", "apneaEvents",
        "sleepSamples", "maxWristTemperature", "minWristTemperature", "averageWristTemperature",
        "granularWristTemperatureData",
    ]
    /// The SDK physical summary (`getPhysicalSummary`) names read, with the key each is read as.
    static let physical: [(sdk: String, key: String)] = [
        ("stepsPerDayNumber", "steps_int"),
        ("activeSeconds", "active_seconds_int"),
        ("caloriesNetActiveKilocalories", "active_calories_kcal_double"),
        ("caloriesExpenditureKilocalories", "total_calories_kcal_double"),
        ("hrRestingBPM", "hr_resting_bpm_int"),
        ("hrvAvgSdnnNumber", "hrv_sdnn_avg_ms"),
        ("hrvAvgRmssdNumber", "hrv_rmssd_avg_ms"),
    ]
    /// The SDK physical summary fields not read (54 of 61).
    static let physicalUnused: Set<String> = [
        "dateTime", "physicalHealthScore", "stepsGranularDataStepsPerHr", "activeStepsPerDayNumber",
        "activeStepsGranularDataStepsPerHr", "walkedDistanceMeters", "traveledDistanceMeters", "cyclingDistanceMeters",
        "traveledDistanceGranularDataMeters", "floorsClimbedNumber", "floorsClimbedGranularDataFloors",
        "elevationAvgAltitudeMeters", "elevationMinimumAltitudeMeters", "elevationMaxAltitudeMeters",
        "elevationLossActualAltitudeMeters", "elevationGainActualAltitudeMeters", "elevationPlannedGainMeters",
        "elevationGranularDataMeters", "swimmingStrokesNumber", "swimmingNumLapsNumber", "swimmingPoolLengthMeters",
        "swimmingTotalDistanceMeters", "swimmingDistanceGranularDataMeters", "saturationAvgPercentage",
        "saturationGranularDataPercentage", "vo2MaxMlPerMinPerKg", "vo2GranularDataLiterPerMin", "restSeconds",
        "lowIntensitySeconds", "moderateIntensitySeconds", "vigorousIntensitySeconds", "inactivitySeconds",
        "continuousInactivePeriodsNumber", "activityLevelGranularDataNumber", "caloriesNetIntakeKilocalories",
        "caloriesBasalMetabolicRateKilocalories", "hrMaxBPM", "hrMinimumBPM", "hrAvgBPM", "hrGranularDataBPM",
        "hrvSdnnGranularDataNumber", "hrvRmssdGranularDataNumber", "stressAtRESTDurationSeconds",
        "stressDurationSeconds", "lowStressDurationSeconds", "mediumStressDurationSeconds", "highStressDurationSeconds",
        "stressGranularDataScoreNumber", "stressAvgLevelNumber", "stressMaxLevelNumber", "walkingSpeed",
        "walkingStepLength", "runningPower", "runningSpeed",
    ]
    /// The SDK activity event (`getActivityEvents`) names read, with the key each is read as.
    static let event: [(sdk: String, key: String)] = [
        ("activityTypeName", "type"),
        ("activityDurationSeconds", "duration_seconds_int"),
        ("caloriesExpenditureKilocalories", "calories_burned_kcal"),
    ]
    /// The SDK activity event fields not read (87 of 90).
    static let eventUnused: Set<String> = [
        "dateTime", "sourcesOfData", "activityStartTimeDateTime", "activityEndTimeDateTime", "activeSeconds",
        "restSeconds", "lowIntensitySeconds", "moderateIntensitySeconds", "vigorousIntensitySeconds",
        "inactivitySeconds", "activityLevelGranularDataNumber", "continuousInactivePeriodsNumber",
        "activityStrainLevelNumber", "activityWorkKilojoules", "activityEnergyKilojoules",
        "activityEnergyPlannedKilojoules", "caloriesNetIntakeKilocalories", "caloriesNetActiveKilocalories",
        "caloriesBasalMetabolicRateKilocalories", "fatPercentageOfCaloriesPercentage",
        "carbohydratePercentageOfCaloriesPercentage", "proteinPercentageOfCaloriesPercentage", "stepsNumber",
        "stepsGranularDataStepsPerMin", "walkedDistanceMeters", "traveledDistanceMeters",
        "traveledDistanceGranularDataMeters", "floorsClimbedNumber", "floorsClimbedGranularDataFloorsNumber",
        "elevationAvgAltitudeMeters", "elevationMinimumAltitudeMeters", "elevationMaxAltitudeMeters",
        "elevationLossActualAltitudeMeters", "elevationGainActualAltitudeMeters", "elevationPlannedGainMeters",
        "elevationGranularDataMeters", "swimmingNumStrokesNumber", "swimmingNumLapsNumber", "swimmingPoolLengthMeters",
        "swimmingTotalDistanceMeters", "swimmingDistanceGranularDataMeters", "hrMaxBPM", "hrMinimumBPM", "hrAvgBPM",
        "hrRestingBPM", "hrGranularDataBPM", "hrvAvgRmssdNumber", "hrvAvgSdnnNumber", "hrvSdnnGranularDataNumber",
        "hrvRmssdGranularDataNumber", "speedNormalizedMetersPerSecond", "speedAvgMetersPerSecond",
        "speedMaxMetersPerSecond", "speedGranularDataMetersPerSecond", "velocityVectorAvgSpeedAndDirection",
        "velocityVectorMaxSpeedAndDirection", "paceAvgMinutesPerKilometer", "paceMaxMinutesPerKilometer",
        "cadenceAvgRPM", "cadenceMaxRPM", "cadenceGranularDataRPM", "torqueAvgNewtonMeters", "torqueMaxNewtonMeters",
        "torqueGranularDataNewtonMeters", "lapGranularDataLapsNumber", "powerAvgWattsNumber", "powerMaxWattsNumber",
        "powerGranularDataWattsNumber", "positionStartLatLngDeg", "positionCentroidLatLngDeg", "positionEndLatLngDeg",
        "positionGranularDataLatLngDeg", "positionPolylineMapDataSummaryString", "saturationAvgPercentage",
        "saturationGranularDataPercentage", "vo2MaxMlPerMinPerKg", "vo2GranularDataMlPerMin",
        "stressAtRESTDurationSeconds", "stressDurationSeconds", "lowStressDurationSeconds",
        "mediumStressDurationSeconds", "highStressDurationSeconds", "tssGranularData1_500_ScoreNumber",
        "stressAvgLevelNumber", "stressMaxLevelNumber", "appleWorkoutIdentifier", "appleDistanceCyclingMeters",
    ]
}
