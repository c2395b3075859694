import BraceletSummaries

/// Open mHealth data points (IEEE 1752.1 header): heart-rate 2.0, step-count 3.0, sleep-episode 1.1,
/// rr-interval 1.0, oxygen-saturation 2.0, respiratory-rate 2.0, body-temperature 4.0.
///
/// Each daily value and each summary slot is one data point. Values without a schema here
/// (RMSSD, energy, distance, skin conductance) are left to the other formats.
public enum OMHExport {
    /// The data points of every day of `dataset`, day by day.
    public static func dataPoints(_ dataset: ExportDataset) -> [JSONValue] {
        let writer = DataPointWriter(dataset: dataset)
        var points: [JSONValue] = []
        for day in dataset.days {
            for measure in Measure.all(of: day.summary, mainSleep: day.mainSleep, slotSeconds: dataset.slotSeconds) {
                if let point = point(measure, writer) { points.append(point) }
            }
            for session in day.sleepSessions { points.append(sleepEpisode(session, writer)) }
        }
        return points
    }

    /// The data points as one JSON array.
    public static func document(_ dataset: ExportDataset) -> JSONValue { .array(dataPoints(dataset)) }

    static func point(_ m: Measure, _ writer: DataPointWriter) -> JSONValue? {
        var body: [String: JSONValue] = ["effective_time_frame": writer.interval(m.start, m.end)]
        let statistic: JSONValue? = switch m.statistic {
        case .average, .minimum, .maximum: .string(m.statistic.rawValue)
        case .standardDeviation: "standard deviation"
        case .sum, .rmssd: nil
        }
        let schema: (String, String, String)
        switch m.kind {
        case .heartRate, .restingHeartRate:
            schema = ("omh", "heart-rate", "2.0")
            body["heart_rate"] = unitValue(m.value, m.unit)
            if m.kind == .restingHeartRate { body["temporal_relationship_to_physical_activity"] = "at rest" }
        case .respiratoryRate:
            schema = ("omh", "respiratory-rate", "2.0")
            body["respiratory_rate"] = unitValue(m.value, m.unit)
        case .oxygenSaturation:
            schema = ("omh", "oxygen-saturation", "2.0")
            body["oxygen_saturation"] = unitValue(m.value, m.unit)
            body["system"] = "peripheral capillary"
            body["measurement_method"] = "pulse oximetry"
        case .skinTemperature, .coreTemperature:
            schema = ("omh", "body-temperature", "4.0")
            body["body_temperature"] = unitValue(m.value, m.unit)
            // The schema's locations name where a thermometer touches; skin temperature is read at
            // the wrist, the core value is an estimate with no place in that list, so it has none.
            if m.kind == .skinTemperature { body["measurement_location"] = "wrist" }
        case .steps:
            schema = ("omh", "step-count", "3.0")
            body["step_count"] = unitValue(m.value, m.unit)
        case .hrvSDNN:
            schema = ("omh", "rr-interval", "1.0")
            body["rr_interval"] = unitValue(m.value, m.unit)
            body["temporal_relationship_to_physical_activity"] = "at rest"
        case .hrvRMSSD, .distance, .activeEnergy, .totalEnergy, .skinConductance:
            return nil
        }
        if let statistic { body["descriptive_statistic"] = statistic }
        return writer.point(schema: schema, key: "\(m.kind.rawValue)|\(m.statistic.rawValue)|\(m.start)|\(m.end)", end: m.end, body: .object(body))
    }

    static func sleepEpisode(_ s: SleepSession, _ writer: DataPointWriter) -> JSONValue {
        let body = JSONValue.compact([
            "effective_time_frame": writer.interval(s.startSession, s.stopSession),
            "total_sleep_time": unitValue(Double(s.totalSleepDuration), .seconds),
            "latency_to_sleep_onset": unitValue(Double(s.timeToSleep), .seconds),
            "latency_to_arising": unitValue(Double(s.timeToWakeUp), .seconds),
            "wake_after_sleep_onset": unitValue(Double(s.wakeAfterSleepOnset), .seconds),
            "number_of_awakenings": .int(Int64(s.totalSleepToAwakeTransitions)),
            "is_main_sleep": .bool(s.isMainSleep),
            "sleep_maintenance_efficiency_percentage": s.sleepEfficiency.map { unitValue(Double($0), .percent) },
        ])
        return writer.point(schema: ("omh", "sleep-episode", "1.1"), key: "sleep|\(s.startSession)", end: s.stopSession, body: body)
    }
}
