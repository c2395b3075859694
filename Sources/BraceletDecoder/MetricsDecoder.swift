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

    /// Copies one field of `n` records into its column: one tight loop per field keeps every
    /// value in a register and lets the compiler pipeline loads and stores.
    @inline(__always)
    static func gather<T: FixedWidthInteger>(_ column: UnsafeMutablePointer<T>, from base: UnsafeRawPointer,
                                             offset: Int, stride: Int, count n: Int) {
        var p = base + offset
        for i in 0..<n {
            column[i] = T(littleEndian: p.loadUnaligned(as: T.self))
            p += stride
        }
    }

    /// Sets `bit` in `flags[i]` for every value outside `lo...hi` that is not the all-ones
    /// sentinel. Contiguous columns let the compiler vectorise this loop.
    @inline(__always)
    static func flagOutOfRange<T: FixedWidthInteger & UnsignedInteger>(_ column: UnsafeMutablePointer<T>, _ lo: T, _ hi: T, bit: UInt32,
                                                                       flags: UnsafeMutablePointer<UInt32>, count n: Int) {
        let width = hi &- lo
        for i in 0..<n {
            let v = column[i]
            let bad: UInt32 = (v &- lo > width) && v != T.max ? 1 : 0
            flags[i] |= bad << bit
        }
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
        let maxSteps = UInt16(clamping: Int(intervalSeconds) * Int(MetricsRecordLayout.maximumStepsPerSecond))
        let maxEnergy = UInt32(clamping: Int(intervalSeconds) * Int(MetricsRecordLayout.maximumCaloriesPerSecond))
        let flags = columns.outOfRange
        flags.update(repeating: 0, count: n)

        Self.gather(columns.bpm, from: base, offset: 0, stride: size, count: n)
        Self.gather(columns.bpmQ, from: base, offset: 1, stride: size, count: n)
        Self.gather(columns.breath, from: base, offset: 2, stride: size, count: n)
        Self.gather(columns.breathQ, from: base, offset: 4, stride: size, count: n)
        Self.gather(columns.activity, from: base, offset: 5, stride: size, count: n)
        Self.gather(columns.steps, from: base, offset: 6, stride: size, count: n)
        Self.gather(columns.speed, from: base, offset: 8, stride: size, count: n)
        Self.gather(columns.skinTemp, from: base, offset: 10, stride: size, count: n)
        Self.gather(columns.energy, from: base, offset: 12, stride: size, count: n)
        Self.gather(columns.activeEnergy, from: base, offset: 16, stride: size, count: n)
        Self.gather(columns.wearing, from: base, offset: 20, stride: size, count: n)
        Self.gather(columns.stage, from: base, offset: 21, stride: size, count: n)
        Self.gather(columns.battery, from: base, offset: 22, stride: size, count: n)

        Self.flagOutOfRange(columns.bpm, 30, 220, bit: 0, flags: flags, count: n)
        Self.flagOutOfRange(columns.bpmQ, 0, 4, bit: 1, flags: flags, count: n)
        Self.flagOutOfRange(columns.breath, 500, 4500, bit: 2, flags: flags, count: n)
        Self.flagOutOfRange(columns.breathQ, 0, 4, bit: 3, flags: flags, count: n)
        let activity = columns.activity
        let activityMask = MetricsRecordLayout.validActivityMask
        for i in 0..<n {
            let v = UInt32(activity[i])
            let bad: UInt32 = v == 0xFF ? 0 : (v > 7 ? 1 : ((activityMask >> (v & 7)) & 1) ^ 1)
            flags[i] |= bad << 4
        }
        Self.flagOutOfRange(columns.steps, 0, maxSteps, bit: 5, flags: flags, count: n)
        Self.flagOutOfRange(columns.speed, 0, 2500, bit: 6, flags: flags, count: n)
        Self.flagOutOfRange(columns.skinTemp, 2000, 4500, bit: 7, flags: flags, count: n)
        Self.flagOutOfRange(columns.energy, 0, maxEnergy, bit: 8, flags: flags, count: n)
        let energy = columns.energy, active = columns.activeEnergy
        for i in 0..<n {
            let a = active[i], e = energy[i]
            let bad: UInt32 = a != .max && (a > maxEnergy || (e != .max && a > e)) ? 1 : 0
            flags[i] |= bad << 9
        }
        Self.flagOutOfRange(columns.wearing, 0, 4, bit: 10, flags: flags, count: n)
        Self.flagOutOfRange(columns.stage, 0, 4, bit: 11, flags: flags, count: n)
        Self.flagOutOfRange(columns.battery, 0, 100, bit: 12, flags: flags, count: n)

        if model == .v2 {
            Self.gather(columns.spo2, from: base, offset: 24, stride: size, count: n)
            Self.gather(columns.spo2Q, from: base, offset: 25, stride: size, count: n)
            Self.gather(columns.coreTemp, from: base, offset: 26, stride: size, count: n)
            Self.gather(columns.eda, from: base, offset: 28, stride: size, count: n)
            Self.flagOutOfRange(columns.spo2, 0, 100, bit: 13, flags: flags, count: n)
            Self.flagOutOfRange(columns.spo2Q, 0, 4, bit: 14, flags: flags, count: n)
            Self.flagOutOfRange(columns.coreTemp, 3400, 4200, bit: 15, flags: flags, count: n)
            Self.flagOutOfRange(columns.eda, 0, 10000, bit: 16, flags: flags, count: n)
        }
        return n * size
    }
}
