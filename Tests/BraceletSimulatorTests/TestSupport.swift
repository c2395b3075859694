import BraceletDecoder
import BraceletSimulator

/// Helpers shared by the physiology tests.
enum TestSupport {
    /// Every named scenario with the default seed.
    static func allScenarioModels() throws -> [PhysiologyModel] {
        try PhysiologyScenario.allCases.map { try $0.makeModel() }
    }

    /// Worn slots whose midpoint is well inside an activity of `kind` (past the first 4 minutes,
    /// so the heart has settled), with the slot fully inside the activity.
    static func steadySlots(of kind: ActivityKind, in model: PhysiologyModel, slots: [Slot]) -> [Slot] {
        let periods = model.activities.filter { $0.kind == kind }
        return slots.filter { slot in
            periods.contains { slot.start >= $0.start + 240 && slot.start + Int64(slot.intervalSeconds) <= $0.end }
                && slot.wearing == 4
        }
    }

    /// Worn, awake slots at least 20 minutes from any activity or sleep, with no steps: sitting still.
    static func restingAwakeSlots(in model: PhysiologyModel, slots: [Slot]) -> [Slot] {
        slots.filter { slot in
            let t = slot.start
            let nearActivity = model.activities.contains { t > $0.start - 1_200 && t < $0.end + 1_200 }
            let nearSleep = model.sleepPeriods.contains { t > $0.start - 1_200 && t < $0.end + 1_200 }
            return !nearActivity && !nearSleep && slot.wearing == 4 && slot.steps == 0
        }
    }

    /// The ground-truth stage at the middle of `slot`, if the slot lies in a sleep period.
    static func stage(of slot: Slot, in model: PhysiologyModel) -> SleepStage? {
        let middle = slot.start + Int64(slot.intervalSeconds) / 2
        return model.sleepPeriods.lazy.compactMap { $0.stage(at: middle) }.first
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    static func standardDeviation(_ values: [Double]) -> Double {
        let m = mean(values)
        return (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(max(1, values.count - 1))).squareRoot()
    }
}
