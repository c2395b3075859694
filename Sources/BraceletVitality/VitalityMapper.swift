/// The rules that turn a day's summaries into ``VitalityRawMetrics``, shared by the bracelet and the
/// ROOK adapter so both sources give the same metric for the same day.
///
/// Rules: sleep hours = main-sleep total / 3600; restorative = (deep + REM) / total sleep x 100;
/// efficiency = total sleep / time in bed x 100 (nil when time in bed is 0); awake = awake / time in
/// bed x 100; movement minutes from minute data, falling back to the sum of workout durations only
/// when there is no minute data; steps as given; active calories only from active energy (total
/// energy is never substituted); HRV = the first present candidate (nightly SDNN before RMSSD) with
/// its type, never converted; resting HR and breathing rate = the first present candidate (sleep
/// before daily). A missing, negative, non-finite or implausible input is treated as absent and the
/// metric stays nil with a logged reason; a ratio above 100 % (inconsistent input) is nil too.
enum VitalityMapper {
    /// Plausible ranges: a value outside is almost always a placeholder (for example 0 for "no
    /// reading") rather than a measurement, so it is treated as missing instead of being scored.
    static let durationRange = 0.0...(7.0 * 86_400)
    static let minutesRange = 0.0...1_440
    static let stepsRange = 0.0...1_000_000
    static let energyRange = 0.0...50_000
    static let hrvRange = 0.5...1_000
    static let restingHeartRateRange = 20.0...250
    static let breathingRateRange = 3.0...70

    static func map(_ inputs: MappingInputs, age: Int) -> (VitalityRawMetrics, [MissingField]) {
        var missing: [MissingField] = []
        func note(_ field: VitalityField, _ reason: String) { missing.append(MissingField(field: field, reason: reason)) }

        let total = usable(inputs.totalSleepSeconds, in: durationRange, unit: "s")
        let deep = usable(inputs.deepSleepSeconds, in: durationRange, unit: "s")
        let rem = usable(inputs.remSleepSeconds, in: durationRange, unit: "s")
        let awake = usable(inputs.awakeSeconds, in: durationRange, unit: "s")
        let inBed = usable(inputs.timeInBedSeconds, in: durationRange, unit: "s")

        // Sleep duration.
        var sleepHours: Double?
        if let t = total.value { sleepHours = t / 3600 } else { note(.sleepDurationHours, total.problem) }

        // Restorative sleep.
        var restorative: Double?
        if let t = total.value, let d = deep.value, let r = rem.value {
            if t == 0 {
                note(.restorativeSleepPercent, "\(inputs.totalSleepSeconds.name) is 0 s, so a share of it is undefined")
            } else {
                let ratio = (d + r) / t * 100
                if ratio > 100 {
                    note(.restorativeSleepPercent, "deep + REM (\(fmt(d + r)) s) exceeds \(inputs.totalSleepSeconds.name) (\(fmt(t)) s): inconsistent input")
                } else { restorative = ratio }
            }
        } else {
            note(.restorativeSleepPercent, problems([total, deep, rem]))
        }

        // Sleep efficiency.
        var efficiency: Double?
        if let t = total.value, let b = inBed.value {
            if b == 0 {
                note(.sleepEfficiencyPercent, "\(inputs.timeInBedSeconds.name) is 0 s, so efficiency is undefined")
            } else if t / b * 100 > 100 {
                note(.sleepEfficiencyPercent, "\(inputs.totalSleepSeconds.name) (\(fmt(t)) s) exceeds \(inputs.timeInBedSeconds.name) (\(fmt(b)) s): inconsistent input")
            } else { efficiency = t / b * 100 }
        } else {
            note(.sleepEfficiencyPercent, problems([total, inBed]))
        }

        // Awake percent.
        var awakePercent: Double?
        if let a = awake.value, let b = inBed.value {
            if b == 0 {
                note(.awakePercent, "\(inputs.timeInBedSeconds.name) is 0 s, so the awake share is undefined")
            } else if a / b * 100 > 100 {
                note(.awakePercent, "\(inputs.awakeSeconds.name) (\(fmt(a)) s) exceeds \(inputs.timeInBedSeconds.name) (\(fmt(b)) s): inconsistent input")
            } else { awakePercent = a / b * 100 }
        } else {
            note(.awakePercent, problems([awake, inBed]))
        }

        // Movement minutes, with the workout fallback only when there is no minute data.
        var movement: Double?
        let minutes = usable(inputs.movementMinutes, in: minutesRange, unit: "min")
        if let m = minutes.value {
            movement = m
        } else {
            let sessions = inputs.workoutSeconds.compactMap { $0 }.filter { $0.isFinite && durationRange.contains($0) }
            if sessions.isEmpty {
                let why = inputs.workoutSeconds.isEmpty ? "has no entries" : "has no entry with a usable duration"
                note(.movementMinutes, "\(minutes.problem), and the fallback \(inputs.workoutsName) \(why)")
            } else {
                movement = sessions.reduce(0, +) / 60
            }
        }

        // Steps.
        var steps: Int?
        let stepInput = usable(inputs.steps, in: stepsRange, unit: "steps")
        if let s = stepInput.value { steps = Int(s.rounded()) } else { note(.steps, stepInput.problem) }

        // Active calories: never substituted by total energy.
        var activeCalories: Double?
        let active = usable(inputs.activeEnergyKcal, in: energyRange, unit: "kcal")
        if let a = active.value {
            activeCalories = a
        } else if let t = usable(inputs.totalEnergyKcal, in: energyRange, unit: "kcal").value {
            note(.activeCalories, "\(active.problem); \(inputs.totalEnergyKcal.name) (\(fmt(t)) kcal) is present but total energy is never used as active energy")
        } else {
            note(.activeCalories, active.problem)
        }

        // HRV: first usable candidate, type kept, never converted.
        var hrv: Double?
        var hrvType: HRVType?
        var hrvProblems: [String] = []
        for candidate in inputs.hrvCandidates {
            let checked = usable(candidate.input, in: hrvRange, unit: "ms")
            if let v = checked.value { hrv = v; hrvType = candidate.type; break }
            hrvProblems.append(checked.problem)
        }
        if hrv == nil { note(.hrvMs, hrvProblems.joined(separator: "; ")) }

        let rhr = firstUsable(inputs.restingHeartRateCandidates, in: restingHeartRateRange, unit: "bpm")
        if rhr.value == nil { note(.restingHeartRate, rhr.problem) }
        let breathing = firstUsable(inputs.breathingRateCandidates, in: breathingRateRange, unit: "brpm")
        if breathing.value == nil { note(.breathingRate, breathing.problem) }

        let metrics = VitalityRawMetrics(
            age: age,
            sleepDurationHours: sleepHours, restorativeSleepPercent: restorative,
            sleepEfficiencyPercent: efficiency, awakePercent: awakePercent,
            movementMinutes: movement, steps: steps, activeCalories: activeCalories,
            hrvMs: hrv, hrvType: hrvType,
            restingHeartRate: rhr.value, breathingRate: breathing.value)
        return (metrics, missing)
    }

    /// A value that passed the checks, or the reason it did not.
    struct Checked {
        let value: Double?
        let problem: String
    }

    static func usable(_ input: NamedInput, in range: ClosedRange<Double>, unit: String) -> Checked {
        guard let v = input.value else { return Checked(value: nil, problem: "\(input.name) is missing") }
        guard v.isFinite else { return Checked(value: nil, problem: "\(input.name) is not a finite number") }
        if input.zeroMeansMissing, v == 0 {
            return Checked(value: nil, problem: "\(input.name) is 0, which this source writes for \"not measured\"; treated as missing")
        }
        guard range.contains(v) else {
            return Checked(value: nil, problem: "\(input.name) is \(fmt(v)) \(unit), outside the plausible range \(fmt(range.lowerBound))-\(fmt(range.upperBound)) \(unit); treated as missing")
        }
        return Checked(value: v, problem: "")
    }

    static func firstUsable(_ inputs: [NamedInput], in range: ClosedRange<Double>, unit: String) -> Checked {
        var problems: [String] = []
        for input in inputs {
            let checked = usable(input, in: range, unit: unit)
            if checked.value != nil { return checked }
            problems.append(checked.problem)
        }
        return Checked(value: nil, problem: problems.isEmpty ? "no source provides it" : problems.joined(separator: "; "))
    }

    static func problems(_ checks: [Checked]) -> String {
        checks.filter { $0.value == nil }.map(\.problem).joined(separator: "; ")
    }

    /// Short number text: whole numbers without a fraction, others with up to 2 decimals.
    static func fmt(_ v: Double) -> String { formatNumber(v, decimals: 2) }
}

/// Formats a number with at most `decimals` decimals and no trailing zeros (`7`, `7.5`, `7.25`).
func formatNumber(_ v: Double, decimals: Int) -> String {
    guard v.isFinite else { return String(v) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (v * scale).rounded() / scale
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
    var text = String(rounded)
    if text.contains("e") { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
}
