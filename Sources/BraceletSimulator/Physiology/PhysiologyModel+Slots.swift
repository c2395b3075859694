import BraceletDecoder
import Foundation

extension PhysiologyModel {
    /// The slots whose start lies in `from ..< to` (UTC Unix seconds), on the model's slot grid
    /// (`start + k * slotIntervalSeconds`), clipped to the model's range. Any sub-range gives exactly
    /// the matching part of the whole range.
    public func slots(from: Int64, to: Int64) -> [Slot] {
        let interval = Int64(slotIntervalSeconds)
        let first = max(0, -(start - from).floorDivided(by: interval).quotient)  // ceil((from - start) / interval)
        let last = min(Int64(slotCount), -(start - to).floorDivided(by: interval).quotient)
        guard first < last else { return [] }
        var result: [Slot] = []
        result.reserveCapacity(Int(last - first))
        for index in first..<last {
            result.append(makeSlot(start: start + index * interval))
        }
        return result
    }

    /// Every slot of the model's range.
    public func slots() -> [Slot] {
        slots(from: start, to: end)
    }

    /// The slot with the given index (0 = the slot starting at `start`), or `nil` outside the range.
    public func slot(at index: Int) -> Slot? {
        guard index >= 0, index < slotCount else { return nil }
        return makeSlot(start: start + Int64(index) * Int64(slotIntervalSeconds))
    }

    /// Steps, distance and active energy in `begin ..< finish`, from the activities it overlaps and,
    /// when awake, incidental movement.
    private func movement(from begin: Double, to finish: Double, _ state: BodyState)
        -> (steps: Double, metres: Double, activeCal: Double, dominant: ActivityKind?) {
        var steps = 0.0
        var metres = 0.0
        var active = 0.0
        var covered = 0.0
        var dominant: (kind: ActivityKind, seconds: Double)?
        let activities = plan.activities
        let height = person.heightCm / 100
        if var index = Self.lastIndex(startingAtOrBefore: finish, count: activities.count,
                                      start: { activities[$0].start }) {
            while index >= 0 {
                let activity = activities[index]
                index -= 1
                let overlap = min(finish, Double(activity.end)) - max(begin, Double(activity.start))
                if Double(activity.end) <= begin {
                    if Double(activity.end) < begin - 86_400 { break }
                    continue
                }
                guard overlap > 0 else { continue }
                let middle = max(begin, Double(activity.start)) + overlap / 2
                let met: Double
                switch activity.kind {
                case .walk:
                    let count = (100 + 6 * noise.smooth(.cadence, at: middle, period: 300)) * overlap / 60
                    steps += count
                    metres += count * 0.415 * height
                    met = 3.5
                case .run:
                    let count = (160 + 5 * noise.smooth(.cadence, at: middle, period: 300)) * overlap / 60
                    steps += count
                    metres += count * 0.65 * height
                    met = 9.8
                case .cycle:
                    metres += (5.5 + 0.6 * noise.smooth(.cycleSpeed, at: middle, period: 300)) * overlap
                    met = 7
                }
                active += (met - 1) * person.weightKg * overlap / 3_600 * 1_000
                covered += overlap
                if overlap > (dominant?.seconds ?? 0) { dominant = (activity.kind, overlap) }
            }
        }
        if state.sleep == nil {
            // Pottering about: up to ~45 steps per minute, about 35 cal per step for 70 kg.
            let count = 45 * fidget(at: (begin + finish) / 2) * max(0, finish - begin - covered) / 60
            steps += count
            metres += count * 0.35 * height
            active += count * 35 * person.weightKg / 70
        }
        let length = finish - begin
        let kind = dominant.flatMap { $0.seconds * 2 >= min(length, 60) ? $0.kind : nil }
        return (steps, metres, active, kind)
    }

    /// Computes the slot that starts at `slotStart`.
    func makeSlot(start slotStart: Int64) -> Slot {
        var slot = Slot(start: slotStart, intervalSeconds: slotIntervalSeconds)
        let length = Double(slotIntervalSeconds)
        let begin = Double(slotStart)
        let middle = begin + length / 2
        let state = bodyState(at: middle)
        slot.battery = Int(plan.battery.level(at: middle).rounded())
        let passive = basalCaloriesPerSecond * length * (state.sleep == nil ? 1 : 0.92)
        guard state.worn else {
            // Off the wrist: nothing about the body is measured. The passive energy is the
            // bracelet's estimate from the profile, which it keeps counting.
            slot.wearing = 0
            slot.energyCal = Int(passive.rounded())
            slot.activeCal = 0
            return slot
        }
        slot.wearing = 4
        let moved = movement(from: begin, to: begin + length, state)
        let steps = Int(moved.steps.rounded())
        slot.steps = steps
        slot.speed = Self.hundredths(moved.metres / length)
        slot.activeCal = Int(moved.activeCal.rounded())
        slot.energyCal = Int((passive + moved.activeCal).rounded())
        if state.sleep != nil {
            slot.activity = 7
        } else if let kind = moved.dominant {
            slot.activity = kind.activityCode
        } else {
            slot.activity = steps > 0 ? 1 : 0
        }
        slot.sleepStage = state.sleep?.stage.rawValue ?? SleepStage.awake.rawValue

        let index = slotStart
        let quality = noise.unit(.bpmQuality, index)
        let condition = Self.condition(state)
        slot.bpm = Int((heartRate(at: middle, state) + 0.7 * noise.gaussian(.heartRateSlot, index)).rounded())
        slot.bpmQuality = Self.quality(condition, quality)
        var breath = breathRate(at: middle, state)
            + (state.sleep?.stage == .deep ? 0.08 : 0.25) * noise.gaussian(.breathSlot, index)
        if state.sleep == nil, state.exertion == nil { breath = min(16, max(12, breath)) }
        slot.breath = Self.hundredths(breath)
        slot.breathQuality = Self.quality(condition, noise.unit(.breathQuality, index))
        slot.skinTempC = Self.hundredths(skinTemperature(at: middle, state))

        if deviceModel == .v2 {
            slot.coreTempC = (coreTemperature(at: middle, state) * 10).rounded() / 10
            var spo2 = (state.sleep == nil ? 97.6 : 96.6) + 0.9 * noise.smooth(.spo2, at: middle, period: 900)
                + 0.5 * noise.gaussian(.spo2Slot, index)
            spo2 = min(99, max(95, spo2))
            if state.sleep != nil {
                // Brief desaturations at night: about 2 % of 3-minute blocks drop to 92-94 %.
                let block = Int64(floor(middle / 180))
                if noise.unit(.spo2Dip, block) < 0.02 { spo2 = 92 + 2 * noise.unit(.spo2Dip, block + 1_000_003) }
            }
            slot.spo2 = Int(spo2.rounded())
            slot.spo2Quality = Self.quality(condition, noise.unit(.spo2Quality, index))
            let eda = electrodermalActivity(at: middle, state) * (1 + 0.03 * noise.gaussian(.edaSlot, index))
            slot.edaMicrosiemens = Self.hundredths(max(0.05, eda))
        }
        return slot
    }

    /// Rounds to 0.01, the wire resolution of breath, speed, temperatures and EDA.
    @inline(__always)
    static func hundredths(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }

    /// How hard the optical sensors have it: asleep, still, or moving like in an activity.
    enum SensorCondition {
        case asleep, still, walking, running
    }

    static func condition(_ state: BodyState) -> SensorCondition {
        if state.sleep != nil { return .asleep }
        guard let exertion = state.exertion, exertion.weight > 0.5 else { return .still }
        return exertion.kind == .run ? .running : .walking
    }

    /// Signal quality 1 ... 4 from a uniform draw `u`: high asleep and still, lower in movement.
    static func quality(_ condition: SensorCondition, _ u: Double) -> Int {
        switch condition {
        case .asleep: u < 0.9 ? 4 : 3
        case .still: u < 0.7 ? 4 : (u < 0.95 ? 3 : 2)
        case .walking: u < 0.45 ? 3 : (u < 0.9 ? 2 : 1)
        case .running: u < 0.25 ? 3 : (u < 0.65 ? 2 : 1)
        }
    }
}
