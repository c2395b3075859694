import BraceletProtocol

/// Decodes the records of a metrics file into ``MetricsColumns``: the hot path.
///
/// The decoder reads straight from a contiguous byte buffer, copies each field into its column and
/// flags values outside their valid range. It allocates nothing per record.
public struct MetricsDecoder: Sendable {
    /// The model whose record layout to read.
    public let model: DeviceModel
    /// Slot length in seconds, for per-slot limits on steps and energy.
    public let intervalSeconds: Int32
    /// Bytes per record.
    public var recordSize: Int { MetricsRecordLayout.size(for: model) }

    /// A decoder for records of `model` with slots of `intervalSeconds`.
    public init(model: DeviceModel, intervalSeconds: Int) {
        self.model = model
        self.intervalSeconds = Int32(clamping: intervalSeconds)
    }

    /// 1 when `v` is neither the sentinel `0xFF` nor within `lo...hi`.
    @inline(__always) static func flag8(_ v: UInt8, _ lo: UInt8, _ hi: UInt8) -> UInt32 {
        UInt32(truncatingIfNeeded: ((v &- lo) > (hi &- lo) ? 1 : 0) & (v != 0xFF ? 1 : 0))
    }
    @inline(__always) static func flag16(_ v: UInt16, _ lo: UInt16, _ hi: UInt16) -> UInt32 {
        UInt32(truncatingIfNeeded: ((v &- lo) > (hi &- lo) ? 1 : 0) & (v != 0xFFFF ? 1 : 0))
    }

    /// Decodes as many whole records from `records` as fit into `columns` (replacing its content)
    /// and returns how many bytes were consumed. `firstStart` is the start of the first record.
    @discardableResult
    public func decode(_ records: UnsafeRawBufferPointer, firstStart: Int64, into columns: MetricsColumns) -> Int {
        let size = recordSize
        let n = min(columns.capacity, records.count / size)
        columns.count = n
        columns.model = model
        columns.firstStart = firstStart
        columns.intervalSeconds = intervalSeconds
        guard n > 0, let base = records.baseAddress else { return 0 }
        let maxSteps = UInt32(truncatingIfNeeded: intervalSeconds) &* MetricsRecordLayout.maximumStepsPerSecond
        let maxEnergy = UInt32(truncatingIfNeeded: intervalSeconds) &* MetricsRecordLayout.maximumCaloriesPerSecond
        let activityMask = MetricsRecordLayout.validActivityMask
        for i in 0..<n {
            let p = base + i &* size
            let bpm = p.load(fromByteOffset: 0, as: UInt8.self)
            let bpmQ = p.load(fromByteOffset: 1, as: UInt8.self)
            let breath = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
            let breathQ = p.load(fromByteOffset: 4, as: UInt8.self)
            let activity = p.load(fromByteOffset: 5, as: UInt8.self)
            let steps = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
            let speed = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
            let skin = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 10, as: UInt16.self))
            let energy = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            let active = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
            let wearing = p.load(fromByteOffset: 20, as: UInt8.self)
            let stage = p.load(fromByteOffset: 21, as: UInt8.self)
            let battery = p.load(fromByteOffset: 22, as: UInt8.self)
            columns.bpm[i] = bpm
            columns.bpmQ[i] = bpmQ
            columns.breath[i] = breath
            columns.breathQ[i] = breathQ
            columns.activity[i] = activity
            columns.steps[i] = steps
            columns.speed[i] = speed
            columns.skinTemp[i] = skin
            columns.energy[i] = energy
            columns.activeEnergy[i] = active
            columns.wearing[i] = wearing
            columns.stage[i] = stage
            columns.battery[i] = battery
            var flags = Self.flag8(bpm, 30, 220)
            flags |= Self.flag8(bpmQ, 0, 4) << 1
            flags |= Self.flag16(breath, 500, 4500) << 2
            flags |= Self.flag8(breathQ, 0, 4) << 3
            let activityBad: UInt32 = activity == 0xFF ? 0 : (activity > 7 ? 1 : ((activityMask >> UInt32(activity)) & 1) ^ 1)
            flags |= activityBad << 4
            flags |= UInt32(truncatingIfNeeded: (steps != 0xFFFF && UInt32(steps) > maxSteps) ? 1 : 0) << 5
            flags |= Self.flag16(speed, 0, 2500) << 6
            flags |= Self.flag16(skin, 2000, 4500) << 7
            flags |= UInt32(truncatingIfNeeded: (energy != 0xFFFF_FFFF && energy > maxEnergy) ? 1 : 0) << 8
            let activeBad = active != 0xFFFF_FFFF && (active > maxEnergy || (energy != 0xFFFF_FFFF && active > energy))
            flags |= UInt32(truncatingIfNeeded: activeBad ? 1 : 0) << 9
            flags |= Self.flag8(wearing, 0, 4) << 10
            flags |= Self.flag8(stage, 0, 4) << 11
            flags |= Self.flag8(battery, 0, 100) << 12
            columns.outOfRange[i] = flags
        }
        if model == .v2 {
            for i in 0..<n {
                let p = base + i &* size
                let spo2 = p.load(fromByteOffset: 24, as: UInt8.self)
                let spo2Q = p.load(fromByteOffset: 25, as: UInt8.self)
                let core = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 26, as: UInt16.self))
                let eda = UInt16(littleEndian: p.loadUnaligned(fromByteOffset: 28, as: UInt16.self))
                columns.spo2[i] = spo2
                columns.spo2Q[i] = spo2Q
                columns.coreTemp[i] = core
                columns.eda[i] = eda
                var flags = Self.flag8(spo2, 0, 100) << 13
                flags |= Self.flag8(spo2Q, 0, 4) << 14
                flags |= Self.flag16(core, 3400, 4200) << 15
                flags |= Self.flag16(eda, 0, 10000) << 16
                columns.outOfRange[i] |= flags
            }
        }
        return n * size
    }
}
