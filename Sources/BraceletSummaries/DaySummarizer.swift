import BraceletDecoder

/// What a day's sleep-related fields need: the main sleep ending that day and the data inside it.
struct MainSleepInput {
    var session: SleepSession
    /// Samples whose start lies in the session (any day).
    var samples: [Slot]
    /// Beats inside the session.
    var beats: [Beat]
    /// The session's HRV when it was computed beforehand (then `beats` is not used).
    var hrv: NightlyHRV?
}

/// Computes one ``DailySummary`` from the samples that start in a local day.
struct DaySummarizer {
    let configuration: SummaryConfiguration
    let rules: SampleRules
    let thresholds: HeartRateZoneThresholds

    init(configuration: SummaryConfiguration) {
        self.configuration = configuration
        self.rules = SampleRules(qualityThreshold: configuration.qualityThreshold)
        self.thresholds = configuration.zoneThresholds
    }

    /// Metres walked for a step count.
    func distance(steps: Int) -> Double { Double(steps) * configuration.heightCm * 0.414 / 100 }

    /// Summarises `samples` (sorted by start, all starting inside `day`). `nightHRV` is the HRV of
    /// the day's night window, the sleep HRV of a device that does not stage sleep (used without a
    /// main sleep).
    func summarize(day: LocalDay, samples: [Slot], mainSleep: MainSleepInput?, nightHRV: NightlyHRV? = nil, now: Int64) -> DailySummary {
        let slotSeconds = Int64(configuration.summarySlotSeconds)
        var hr = WeightedStats(), breath = WeightedStats(), spo2 = WeightedStats()
        var skin = WeightedStats(), core = WeightedStats(), eda = WeightedStats()
        var zoneSeconds = [Int64](repeating: 0, count: HeartRateZone.allCases.count)
        var stepTotal: Int?
        var energyTotal: Int?
        var activeTotal: Int?
        var stepsPerHour: [Int: Int] = [:]

        var bpmSlots: [BPMSlot] = [], breathSlots: [BreathSlot] = [], spo2Slots: [Spo2Slot] = []
        var skinSlots: [BodyTempSlot] = [], coreSlots: [CoreBodyTemperatureSlot] = [], edaSlots: [EmographySlot] = []
        var stepSlots: [StepsSlot] = [], activitySlots: [ActivitySlot] = []
        var activeSlots: [(index: Int64, bpm: Double?, activity: Int?, steps: Int?)] = []
        var outOfRange = OutOfRangeCounter()

        var index = 0
        while index < samples.count {
            // One summary slot: all samples whose start falls into it.
            let slotIndex = (samples[index].start - day.start) / slotSeconds
            let slotStart = day.start + slotIndex * slotSeconds
            var bpmMean = SlotMean(), breathMean = SlotMean(), spo2Mean = SlotMean()
            var skinMean = SlotMean(), coreMean = SlotMean(), edaMean = SlotMean(), speedMean = SlotMean()
            var slotSteps: Int?, slotEnergy: Int?, slotActive: Int?
            var activityCounts: [Int: Int] = [:]
            while index < samples.count, (samples[index].start - day.start) / slotSeconds == slotIndex {
                let s = samples[index]
                index += 1
                outOfRange.record(s)
                if rules.countsHeartRate(s), let bpm = s.bpm {
                    hr.add(Double(bpm), start: s.start, seconds: s.intervalSeconds)
                    bpmMean.add(Double(bpm))
                    zoneSeconds[thresholds.zone(bpm: Double(bpm)).rawValue] += Int64(s.intervalSeconds)
                }
                if rules.countsBreath(s), let b = s.breath {
                    breath.add(b, start: s.start, seconds: s.intervalSeconds)
                    breathMean.add(b, quality: s.breathQuality)
                }
                if rules.countsSpo2(s), let o = s.spo2 {
                    spo2.add(Double(o), start: s.start, seconds: s.intervalSeconds)
                    spo2Mean.add(Double(o))
                }
                if rules.countsValue(s.skinTempC, .skinTempC, s), let t = s.skinTempC {
                    skin.add(t, start: s.start, seconds: s.intervalSeconds)
                    skinMean.add(t)
                }
                if rules.countsValue(s.coreTempC, .coreTempC, s), let t = s.coreTempC {
                    core.add(t, start: s.start, seconds: s.intervalSeconds)
                    coreMean.add(t)
                }
                if rules.countsValue(s.edaMicrosiemens, .edaMicrosiemens, s), let e = s.edaMicrosiemens {
                    eda.add(e, start: s.start, seconds: s.intervalSeconds)
                    edaMean.add(e)
                }
                if let steps = s.steps, SampleRules.stepRange.contains(steps) {
                    slotSteps = (slotSteps ?? 0) + steps
                    stepTotal = (stepTotal ?? 0) + steps
                    let hour = Int((s.start - day.start) / 3600)
                    stepsPerHour[hour, default: 0] += steps
                }
                if let e = s.energyCal, SampleRules.energyRange.contains(e) {
                    slotEnergy = (slotEnergy ?? 0) + e
                    energyTotal = (energyTotal ?? 0) + e
                }
                if let a = s.activeCal, SampleRules.energyRange.contains(a) {
                    slotActive = (slotActive ?? 0) + a
                    activeTotal = (activeTotal ?? 0) + a
                }
                if let v = s.speed, v.isFinite { speedMean.add(v) }
                if let a = s.activity { activityCounts[a, default: 0] += 1 }
            }
            if let m = bpmMean.mean { bpmSlots.append(BPMSlot(intervalDate: slotStart, bpm: roundedInt(m))) }
            if let m = breathMean.mean {
                breathSlots.append(BreathSlot(intervalDate: slotStart, brpm: roundedInt(m), brpmQ: breathMean.lowestQuality))
            }
            if let m = spo2Mean.mean { spo2Slots.append(Spo2Slot(intervalDate: slotStart, spo2: roundedInt(m))) }
            if let m = skinMean.mean { skinSlots.append(BodyTempSlot(intervalDate: slotStart, temp: m)) }
            if let m = coreMean.mean { coreSlots.append(CoreBodyTemperatureSlot(intervalDate: slotStart, coreBodyTemperature: m)) }
            if let m = edaMean.mean { edaSlots.append(EmographySlot(date: slotStart, stressLevelSkinConductance: m)) }
            let activity = Self.mostFrequent(activityCounts)
            let slotDistance = slotSteps.map { roundedInt(distance(steps: $0)) }
            if slotSteps != nil || slotEnergy != nil || speedMean.mean != nil || activity != nil {
                stepSlots.append(StepsSlot(intervalDate: slotStart, stepCount: slotSteps, energyExp: slotEnergy.map { Double($0) / 1000 },
                                           speed: speedMean.mean, activityType: activity, distance: slotDistance))
            }
            if slotSteps != nil || slotActive != nil {
                activitySlots.append(ActivitySlot(intervalDate: slotStart, steps: slotSteps, distance: slotDistance,
                                                  calories: slotActive.map { Double($0) / 1000 }))
            }
            if bpmMean.mean != nil || activity != nil || slotSteps != nil {
                activeSlots.append((slotIndex, bpmMean.mean, activity, slotSteps))
            }
        }

        var bpmSummary = BPMSummary(zoneThresholds: thresholds)
        bpmSummary.averageBPM = hr.mean.map(roundedInt)
        bpmSummary.lastBPM = hr.last.map(roundedInt)
        bpmSummary.maxDayBPM = hr.maximum.map(roundedInt)
        bpmSummary.minDayBPM = hr.minimum.map(roundedInt)
        let counted = zoneSeconds.reduce(0, +)
        if counted > 0 {
            let minutes = zoneSeconds.map { roundedInt(Double($0) / 60) }
            let percents = zoneSeconds.map { percent(Int($0), of: Int(counted)) }
            bpmSummary.durationRestZone = minutes[0]; bpmSummary.percentageRestZone = percents[0]
            bpmSummary.durationWarmUpZone = minutes[1]; bpmSummary.percentageWarmUpZone = percents[1]
            bpmSummary.durationFatBurnZone = minutes[2]; bpmSummary.percentageFatBurnZone = percents[2]
            bpmSummary.durationEnduranceZone = minutes[3]; bpmSummary.percentageEnduranceZone = percents[3]
            bpmSummary.durationPerformanceZone = minutes[4]; bpmSummary.percentagePerformanceZone = percents[4]
            bpmSummary.durationMaxZone = minutes[5]; bpmSummary.percentageMaxZone = percents[5]
        }
        bpmSummary.dailyRestingBPM = RestingHeartRate.lowestRollingMean(samples: samples, start: day.start, stop: day.end,
                                                                       counts: rules.countsHeartRate)
        bpmSummary.slots = bpmSlots

        var breathSummary = BreathSummary()
        breathSummary.averageBreath = breath.mean.map(roundedInt)
        breathSummary.lastBreath = breath.last.map(roundedInt)
        breathSummary.maxDayBreath = breath.maximum.map(roundedInt)
        breathSummary.minDayBreath = breath.minimum.map(roundedInt)
        breathSummary.slots = breathSlots

        var stepsSummary = StepsSummary()
        stepsSummary.stepCount = stepTotal
        stepsSummary.stepDistance = stepTotal.map(distance(steps:))
        stepsSummary.stepCalories = energyTotal.map { Double($0) / 1000 }
        stepsSummary.goalStepPercentage = stepTotal.map { percent($0, of: configuration.stepGoal) ?? 0 }
        stepsSummary.moveEveryHour = stepTotal == nil ? nil : stepsPerHour.values.filter { $0 > 0 }.count
        stepsSummary.slots = stepSlots
        if !activeSlots.isEmpty {
            let workouts = findWorkouts(activeSlots, day: day, slotSeconds: slotSeconds)
            stepsSummary.workouts = workouts
            stepsSummary.workoutsCount = workouts.count
        }

        var activitySummary = ActivitySummary()
        activitySummary.steps = stepTotal
        activitySummary.distance = stepTotal.map { roundedInt(distance(steps: $0)) }
        activitySummary.calories = activeTotal.map { Double($0) / 1000 }
        activitySummary.slots = activitySlots

        var skinSummary = BodyTempSummary()
        skinSummary.averageTemp = skin.mean; skinSummary.lastTemp = skin.last; skinSummary.maxDayTemp = skin.maximum
        skinSummary.slots = skinSlots
        var coreSummary = CoreBodyTemperatureSummary()
        coreSummary.averageCoreBodyTemperature = core.mean
        coreSummary.lastCoreBodyTemperature = core.last
        coreSummary.maxDayCoreBodyTemperature = core.maximum
        coreSummary.slots = coreSlots
        var spo2Summary = Spo2Summary()
        spo2Summary.averageSpo2 = spo2.mean.map(roundedInt)
        spo2Summary.lastSpo2 = spo2.last.map(roundedInt)
        spo2Summary.maxDaySpo2 = spo2.maximum.map(roundedInt)
        spo2Summary.slots = spo2Slots
        var edaSummary = EmographySummary()
        edaSummary.stressLevelSkinConductanceAvg = eda.mean
        edaSummary.stressLevelSkinConductanceLast = eda.last
        edaSummary.stressLevelSkinConductanceMax = eda.maximum
        edaSummary.slots = edaSlots

        var sleepHRV = mainSleep == nil ? nightHRV : nil
        if let mainSleep {
            let session = mainSleep.session
            bpmSummary.sleepRestingBPM = RestingHeartRate.lowestRollingMean(
                samples: mainSleep.samples, start: session.startSession, stop: session.stopSession, counts: rules.countsHeartRate)
            var sleepBreath = WeightedStats()
            for s in mainSleep.samples where rules.countsBreath(s) {
                if let b = s.breath { sleepBreath.add(b, start: s.start, seconds: s.intervalSeconds) }
            }
            breathSummary.sleepBreathRate = sleepBreath.mean
            sleepHRV = mainSleep.hrv ?? HRVAnalysis.nightly(mainSleep.beats, start: session.startSession, stop: session.stopSession)
        }

        return DailySummary(date: day.date, dayStart: day.start, dayEnd: day.end, bpm: bpmSummary, breath: breathSummary,
                            steps: stepsSummary, activity: activitySummary, bodyTemp: skinSummary,
                            coreBodyTemperature: coreSummary, spo2: spo2Summary, emography: edaSummary,
                            sleepHRV: sleepHRV, mainSleepStart: mainSleep?.session.startSession,
                            coverage: DayCoverage.measure(samples: samples, dayStart: day.start, dayEnd: day.end, now: now,
                                                          isWorn: rules.isWorn),
                            diagnostics: outOfRange.diagnostics)
    }

    /// Workouts: runs of adjacent active summary slots lasting at least 10 minutes.
    private func findWorkouts(_ slots: [(index: Int64, bpm: Double?, activity: Int?, steps: Int?)], day: LocalDay,
                              slotSeconds: Int64) -> [Workout] {
        let moving: Set<Int> = [2, 4, 6]
        var workouts: [Workout] = []
        var run: [(index: Int64, bpm: Double?, activity: Int?, steps: Int?)] = []
        func close() {
            defer { run.removeAll() }
            guard let first = run.first, let last = run.last,
                  (last.index - first.index + 1) * slotSeconds >= Workout.minimumSeconds else { return }
            let stepsList = run.compactMap(\.steps)
            let bpms = run.compactMap(\.bpm)
            var counts: [Int: Int] = [:]
            for r in run { if let a = r.activity, moving.contains(a) { counts[a, default: 0] += 1 } }
            let stop = min(day.start + (last.index + 1) * slotSeconds, day.end)
            workouts.append(Workout(start: day.start + first.index * slotSeconds, stop: stop,
                                    steps: stepsList.isEmpty ? nil : stepsList.reduce(0, +),
                                    averageBPM: bpms.isEmpty ? nil : roundedInt(bpms.reduce(0, +) / Double(bpms.count)),
                                    activityType: Self.mostFrequent(counts)))
        }
        for slot in slots {
            let active = (slot.activity.map { moving.contains($0) } ?? false)
                || (slot.bpm.map { $0 >= Double(thresholds.t60) } ?? false)
            if !active {
                close()
                continue
            }
            if let last = run.last, last.index + 1 != slot.index { close() }
            run.append(slot)
        }
        close()
        return workouts
    }

    /// The key with the highest count; ties go to the lowest key; nil when empty.
    static func mostFrequent(_ counts: [Int: Int]) -> Int? {
        counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }
}

extension Workout {
    /// Shortest workout, seconds (10 minutes).
    public static let minimumSeconds: Int64 = 600
}
