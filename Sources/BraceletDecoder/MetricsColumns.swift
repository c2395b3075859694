import BraceletProtocol
import CDecodeKernels

/// A reusable, column-oriented batch of decoded metrics records: one contiguous array per field.
///
/// Columns hold the raw wire values (sentinels included), so decoding is a copy and a range check;
/// the accessors turn a sentinel into `nil` and scale to units. Allocate a batch once and refill it
/// with ``MetricsDecoder/decode(_:into:)``: decoding allocates nothing per record.
public final class MetricsColumns {
    /// Most records the batch holds.
    public let capacity: Int
    /// Records currently held.
    public internal(set) var count = 0
    /// The model the records came from.
    public internal(set) var model: DeviceModel = .v1
    /// Start of record 0, Unix seconds.
    public internal(set) var firstStart: Int64 = 0
    /// Slot length in seconds.
    public internal(set) var intervalSeconds: Int32 = 60

    /// The raw columns (sentinels included), for writers in this package that format records
    /// straight from them; index them only below ``count``.
    @usableFromInline package let bpm, bpmQ, breathQ, activity, wearing, stage, battery, spo2, spo2Q: UnsafeMutablePointer<UInt8>
    @usableFromInline package let breath, steps, speed, skinTemp, coreTemp, eda: UnsafeMutablePointer<UInt16>
    @usableFromInline package let energy, activeEnergy: UnsafeMutablePointer<UInt32>
    /// One out-of-range bitset per field (bit i % 16 of word i / 16), in ``SlotFields`` bit order.
    let badBits: UnsafeMutablePointer<UInt16>
    /// Words per bitset.
    let badWords: Int
    /// The same pointers, as the C kernel takes them: kept in memory of their own and never
    /// changed, so that handing them to the kernel for each batch is passing a pointer (an inout
    /// access to a stored property of a class is checked for exclusivity by a runtime call at each
    /// batch, a few percent of decoding a batch).
    let kernelColumns: UnsafeMutablePointer<bracelet_columns>

    /// Creates an empty batch able to hold `capacity` records.
    public init(capacity: Int = 4096) {
        let n = max(1, capacity)
        self.capacity = n
        func bytes() -> UnsafeMutablePointer<UInt8> { .allocate(capacity: n) }
        func halves() -> UnsafeMutablePointer<UInt16> { .allocate(capacity: n) }
        func words() -> UnsafeMutablePointer<UInt32> { .allocate(capacity: n) }
        bpm = bytes(); bpmQ = bytes(); breathQ = bytes(); activity = bytes(); wearing = bytes()
        stage = bytes(); battery = bytes(); spo2 = bytes(); spo2Q = bytes()
        breath = halves(); steps = halves(); speed = halves(); skinTemp = halves(); coreTemp = halves(); eda = halves()
        energy = words(); activeEnergy = words()
        badWords = n / 16 + 1
        let fieldCount = Int(BRACELET_FIELD_COUNT.rawValue)
        badBits = .allocate(capacity: badWords * fieldCount)
        badBits.initialize(repeating: 0, count: badWords * fieldCount)
        var kernel = bracelet_columns()
        kernel.bpm = bpm; kernel.bpm_q = bpmQ; kernel.breath_q = breathQ; kernel.activity = activity
        kernel.wearing = wearing; kernel.stage = stage; kernel.battery = battery
        kernel.spo2 = spo2; kernel.spo2_q = spo2Q
        kernel.breath = breath; kernel.steps = steps; kernel.speed = speed; kernel.skin = skinTemp
        kernel.core = coreTemp; kernel.eda = eda; kernel.energy = energy; kernel.active = activeEnergy
        let bits = badBits, stride = badWords
        withUnsafeMutableBytes(of: &kernel.bad) { raw in
            let slots = raw.bindMemory(to: UnsafeMutablePointer<UInt16>?.self)
            for field in 0..<fieldCount { slots[field] = bits + field * stride }
        }
        kernelColumns = .allocate(capacity: 1)
        kernelColumns.initialize(to: kernel)
    }

    deinit {
        for p in [bpm, bpmQ, breathQ, activity, wearing, stage, battery, spo2, spo2Q] { p.deallocate() }
        for p in [breath, steps, speed, skinTemp, coreTemp, eda] { p.deallocate() }
        for p in [energy, activeEnergy] { p.deallocate() }
        badBits.deallocate()
        kernelColumns.deallocate()
    }

    @inline(__always) static func value8(_ v: UInt8) -> Int? { v == 0xFF ? nil : Int(v) }
    @inline(__always) static func value16(_ v: UInt16, _ divisor: Double) -> Double? { v == 0xFFFF ? nil : Double(v) / divisor }

    /// Stops the program when `i` is not a record of the batch: reading past `count` would return
    /// values of an earlier batch (or, past `capacity`, memory that is not the batch's at all).
    @inline(__always)
    func check(_ i: Int) {
        precondition(i >= 0 && i < count, "record \(i) is outside the batch of \(count) records")
    }

    /// Start of record `i`, Unix seconds.
    public func start(at i: Int) -> Int64 {
        check(i)
        return firstStart + Int64(i) * Int64(intervalSeconds)
    }
    /// Heart rate of record `i`, beats per minute.
    public func bpm(at i: Int) -> Int? {
        check(i)
        return Self.value8(bpm[i])
    }
    /// Breath rate of record `i`, breaths per minute.
    public func breath(at i: Int) -> Double? {
        check(i)
        return Self.value16(breath[i], 100)
    }
    /// Sleep stage of record `i`.
    public func sleepStage(at i: Int) -> Int? {
        check(i)
        return Self.value8(stage[i])
    }
    /// Fields of record `i` the decoder found out of range.
    public func outOfRange(at i: Int) -> SlotFields {
        check(i)
        return uncheckedOutOfRange(i)
    }

    /// Record `i` as a ``Slot``; sentinels become `nil`.
    public func slot(at i: Int) -> Slot {
        check(i)
        return uncheckedSlot(i)
    }

    /// Calls `body` with every record of the batch, in order, as a ``Slot`` with the fields the decoder
    /// found out of range. The bounds are those of the batch, checked once for all records.
    public func forEachSlot(_ body: (Slot, SlotFields) throws -> Void) rethrows {
        precondition(count <= capacity, "a batch of \(count) records in columns for \(capacity)")
        for i in 0..<count { try body(uncheckedSlot(i), uncheckedOutOfRange(i)) }
    }

    /// ``outOfRange(at:)`` without the bounds check: for a caller that checked `i < count`.
    package func uncheckedOutOfRange(_ i: Int) -> SlotFields {
        let word = i / 16, bit = UInt16(1) << UInt16(i % 16)
        var raw: UInt32 = 0
        let fields = model == .v2 ? Int(BRACELET_FIELD_COUNT.rawValue) : Int(BRACELET_SPO2.rawValue)
        for field in 0..<fields where badBits[field * badWords + word] & bit != 0 { raw |= 1 << UInt32(field) }
        return SlotFields(rawValue: raw)
    }

    private func uncheckedSlot(_ i: Int) -> Slot {
        var s = Slot(start: firstStart + Int64(i) * Int64(intervalSeconds), intervalSeconds: intervalSeconds)
        s.bpm = Self.value8(bpm[i])
        s.bpmQuality = Self.value8(bpmQ[i])
        s.breath = Self.value16(breath[i], 100)
        s.breathQuality = Self.value8(breathQ[i])
        s.steps = steps[i] == 0xFFFF ? nil : Int(steps[i])
        s.activity = Self.value8(activity[i])
        s.speed = Self.value16(speed[i], 100)
        s.energyCal = energy[i] == 0xFFFF_FFFF ? nil : Int(energy[i])
        s.activeCal = activeEnergy[i] == 0xFFFF_FFFF ? nil : Int(activeEnergy[i])
        s.skinTempC = Self.value16(skinTemp[i], 100)
        s.wearing = Self.value8(wearing[i])
        s.sleepStage = Self.value8(stage[i])
        s.battery = Self.value8(battery[i])
        if model == .v2 {
            s.spo2 = Self.value8(spo2[i])
            s.spo2Quality = Self.value8(spo2Q[i])
            s.coreTempC = Self.value16(coreTemp[i], 100)
            s.edaMicrosiemens = Self.value16(eda[i], 100)
        }
        return s
    }
}
