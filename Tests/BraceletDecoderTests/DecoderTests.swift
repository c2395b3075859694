import Testing
import BraceletProtocol
@testable import BraceletDecoder

private func slot(_ start: Int64, bpm: Int?, stage: Int?) -> Slot {
    var s = Slot(start: start, intervalSeconds: 60)
    s.bpm = bpm
    s.bpmQuality = bpm == nil ? nil : 3
    s.sleepStage = stage
    s.wearing = bpm == nil ? 0 : 4
    s.energyCal = 1000
    return s
}

@Test func sentinelsDecodeToNilNeverZero() throws {
    var bytes: [UInt8] = []
    try MetricsRecordEncoder(model: .v2).append(Slot(start: 0, intervalSeconds: 60), to: &bytes)
    #expect(bytes == [UInt8](repeating: 0xFF, count: 23) + [0] + [UInt8](repeating: 0xFF, count: 6) + [0, 0])
    let columns = MetricsColumns(capacity: 1)
    bytes.withUnsafeBytes { _ = MetricsDecoder(model: .v2, intervalSeconds: 60).decode($0, firstStart: 0, into: columns) }
    #expect(columns.slot(at: 0) == Slot(start: 0, intervalSeconds: 60))
    #expect(columns.outOfRange(at: 0).isEmpty)
}

@Test func zeroIsAValueNotAbsence() throws {
    var s = Slot(start: 60, intervalSeconds: 60)
    s.steps = 0
    s.speed = 0
    s.activeCal = 0
    s.wearing = 0
    var bytes: [UInt8] = []
    try MetricsRecordEncoder(model: .v1).append(s, to: &bytes)
    let columns = MetricsColumns(capacity: 1)
    bytes.withUnsafeBytes { _ = MetricsDecoder(model: .v1, intervalSeconds: 60).decode($0, firstStart: 60, into: columns) }
    let back = columns.slot(at: 0)
    #expect(back.steps == 0)
    #expect(back.speed == 0)
    #expect(back.activeCal == 0)
    #expect(back.wearing == 0)
    #expect(back.bpm == nil)
}

@Test func outOfRangeValuesAreFlaggedAndKept() throws {
    var s = Slot(start: 0, intervalSeconds: 60)
    s.bpm = 29            // below 30
    s.breath = 4.99       // below 5.00
    s.activity = 3        // not a defined activity type
    s.steps = 301         // more than 5 steps/s over 60 s
    s.skinTempC = 45.01   // above 45.00
    s.energyCal = 500
    s.activeCal = 600     // active above total
    s.battery = 101
    var bytes: [UInt8] = []
    try MetricsRecordEncoder(model: .v1).append(s, to: &bytes)
    let columns = MetricsColumns(capacity: 1)
    bytes.withUnsafeBytes { _ = MetricsDecoder(model: .v1, intervalSeconds: 60).decode($0, firstStart: 0, into: columns) }
    #expect(columns.outOfRange(at: 0) == [.bpm, .breath, .activity, .steps, .skinTemp, .activeEnergy, .battery])
    let back = columns.slot(at: 0)
    #expect(back.bpm == 29)
    #expect(back.steps == 301)
    #expect(back.battery == 101)
}

@Test func boundaryValuesAreInRange() throws {
    for (bpm, steps) in [(30, 300), (220, 0)] {
        var s = Slot(start: 0, intervalSeconds: 60)
        s.bpm = bpm
        s.steps = steps
        s.activity = 7
        s.coreTempC = 42.0
        var bytes: [UInt8] = []
        try MetricsRecordEncoder(model: .v2).append(s, to: &bytes)
        let columns = MetricsColumns(capacity: 1)
        bytes.withUnsafeBytes { _ = MetricsDecoder(model: .v2, intervalSeconds: 60).decode($0, firstStart: 0, into: columns) }
        #expect(columns.outOfRange(at: 0).isEmpty)
    }
}

@Test func encoderRefusesValuesThatCollideWithTheSentinel() {
    var s = Slot(start: 120, intervalSeconds: 60)
    s.bpm = 255
    var bytes: [UInt8] = []
    #expect(throws: RecordEncodingError.valueDoesNotFit(field: "bpm", value: 255, slotStart: 120)) {
        try MetricsRecordEncoder(model: .v1).append(s, to: &bytes)
    }
}

@Test func fileDecodesInBatchesWithConsecutiveStarts() throws {
    let slots = (0..<10).map { slot(1_000_000 + Int64($0) * 60, bpm: $0 % 3 == 0 ? nil : 50 + $0, stage: $0 % 5) }
    let file = try MetricsRecordEncoder(model: .v1).sealedFile(serial: "BR100042", timeZoneOffsetMinutes: 60,
                                                               intervalSeconds: 60, firstStart: 1_000_000, slots: slots)
    var decoded: [Slot] = []
    var batches = 0
    let summary = try file.withUnsafeBytes { raw in
        try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 4)) { c in
            batches += 1
            for i in 0..<c.count { decoded.append(c.slot(at: i)) }
        }
    }
    #expect(batches == 3)
    #expect(decoded == slots)
    #expect(summary.records == 10)
    #expect(summary.faults.isEmpty)
    #expect(summary.header.serial == "BR100042")
}

@Test func truncatedFileDeliversTheRecordsBeforeTheCut() throws {
    let slots = (0..<5).map { slot(Int64($0) * 60, bpm: 60, stage: 2) }
    let file = try MetricsRecordEncoder(model: .v1).sealedFile(serial: "X", timeZoneOffsetMinutes: 0, intervalSeconds: 60,
                                                               firstStart: 0, slots: slots)
    let cut = Array(file[0..<(32 + 24 * 3 + 10)])
    var decoded: [Slot] = []
    let summary = try cut.withUnsafeBytes { raw in
        try FileDecoder.decodeMetrics(raw, columns: MetricsColumns()) { c in for i in 0..<c.count { decoded.append(c.slot(at: i)) } }
    }
    #expect(decoded == Array(slots[0..<3]))
    #expect(summary.faults == [.truncated(offset: 114, needed: 24, what: "record 3 of 5")])
}

@Test func beatsFileKeepsGapsAsNil() throws {
    let beats = [Beat(timeMs: 1_000_000_500, rrMs: nil), Beat(timeMs: 1_000_001_480, rrMs: 980), Beat(timeMs: 1_000_060_000, rrMs: nil)]
    let file = BeatsCodec.sealedFile(model: .v2, serial: "BR2", timeZoneOffsetMinutes: 0, baseTime: 1_000_000, beats: beats)
    let (decoded, summary) = try file.withUnsafeBytes { try FileDecoder.decodeBeats($0) }
    #expect(decoded == beats)
    #expect(summary.faults.isEmpty)
}

@Test func metricsDecoderRejectsABeatsFile() {
    let file = BeatsCodec.sealedFile(model: .v1, serial: "B", timeZoneOffsetMinutes: 0, baseTime: 0, beats: [])
    #expect(throws: FileFormatError.self) {
        try file.withUnsafeBytes { raw in try FileDecoder.decodeMetrics(raw, columns: MetricsColumns()) { _ in } }
    }
}

/// Random slots across each field's whole wire range (sentinel included as nil), many enough to go
/// through the vectorised paths and the scalar tail, decoded in odd-sized batches: 77 is 64 records
/// in 32-record AVX2 steps (or 16-record SSE2 steps) and 13 scalar, 93 adds one 16-record SSE2 step
/// after the AVX2 ones.
@Test(arguments: [DeviceModel.v1, .v2], [77, 93])
func randomSlotsRoundTripThroughTheVectorisedDecoder(model: DeviceModel, batch: Int) throws {
    var rng = SystemRandomNumberGenerator()
    func maybe<T>(_ value: @autoclosure () -> T) -> T? { Int.random(in: 0..<5, using: &rng) == 0 ? nil : value() }
    let slots: [Slot] = (0..<1_003).map { i in
        var s = Slot(start: 1_700_000_000 + Int64(i) * 30, intervalSeconds: 30)
        s.bpm = maybe(Int.random(in: 0...254)); s.bpmQuality = maybe(Int.random(in: 0...254))
        s.breath = maybe(Double(Int.random(in: 0...65534)) / 100); s.breathQuality = maybe(Int.random(in: 0...254))
        s.activity = maybe(Int.random(in: 0...254)); s.steps = maybe(Int.random(in: 0...65534))
        s.speed = maybe(Double(Int.random(in: 0...65534)) / 100); s.skinTempC = maybe(Double(Int.random(in: 0...65534)) / 100)
        s.energyCal = maybe(Int.random(in: 0...4_294_967_294)); s.activeCal = maybe(Int.random(in: 0...4_294_967_294))
        s.wearing = maybe(Int.random(in: 0...254)); s.sleepStage = maybe(Int.random(in: 0...254)); s.battery = maybe(Int.random(in: 0...254))
        if model == .v2 {
            s.spo2 = maybe(Int.random(in: 0...254)); s.spo2Quality = maybe(Int.random(in: 0...254))
            s.coreTempC = maybe(Double(Int.random(in: 0...65534)) / 100); s.edaMicrosiemens = maybe(Double(Int.random(in: 0...65534)) / 100)
        }
        return s
    }
    let file = try MetricsRecordEncoder(model: model).sealedFile(serial: "R", timeZoneOffsetMinutes: 0, intervalSeconds: 30,
                                                                 firstStart: slots[0].start, slots: slots)
    var decoded: [Slot] = []
    var flags: [SlotFields] = []
    _ = try file.withUnsafeBytes { raw in
        try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: batch)) { c in
            for i in 0..<c.count {
                decoded.append(c.slot(at: i))
                flags.append(c.outOfRange(at: i))
            }
        }
    }
    #expect(decoded == slots)
    #expect(flags.filter { !$0.isEmpty }.count > 900)  // whole-range random values are mostly out of range
    // The kernel's flags equal the layout table's ranges applied to the raw records.
    let recordBytes = Array(file[FileHeader.length..<(file.count - FileHeader.trailerLength)])
    let size = MetricsRecordLayout.size(for: model)
    let expected = (0..<slots.count).map { i in
        referenceOutOfRange(Array(recordBytes[(i * size)..<((i + 1) * size)]), model: model, intervalSeconds: 30)
    }
    #expect(flags == expected)
}

/// The range rules of protocol-specs §6.2 as written in `MetricsRecordLayout`, applied plainly to one
/// raw record: the independent check of the C kernel.
func referenceOutOfRange(_ record: [UInt8], model: DeviceModel, intervalSeconds: UInt32) -> SlotFields {
    func raw(_ field: RecordField) -> UInt32 {
        (0..<field.width).reduce(UInt32(0)) { $0 | UInt32(record[field.offset + $1]) << (8 * UInt32($1)) }
    }
    let bits: [String: SlotFields] = Dictionary(uniqueKeysWithValues: SlotFields.namedFields.map { ($0.1, $0.0) })
    var flags: SlotFields = []
    var values: [String: UInt32] = [:]
    for field in MetricsRecordLayout.fields(for: model) {
        let v = raw(field)
        guard v != field.sentinel else { continue }
        values[field.name] = v
        var bad = !field.validRaw.contains(v)
        switch field.name {
        case "activity": bad = MetricsRecordLayout.validActivityMask >> min(v, 31) & 1 == 0 || v > 7
        case "steps": bad = v > MetricsRecordLayout.maximumStepsPerSecond * intervalSeconds
        case "energy_cal": bad = v > MetricsRecordLayout.maximumCaloriesPerSecond * intervalSeconds
        default: break
        }
        if bad, let bit = bits[field.name] { flags.insert(bit) }
    }
    if let active = values["active_cal"],
       active > MetricsRecordLayout.maximumCaloriesPerSecond * intervalSeconds || values["energy_cal"].map({ active > $0 }) == true {
        flags.insert(.activeEnergy)
    }
    return flags
}

/// Every field at the edges of its range (just below, at and just above each limit, 0, the largest
/// value and the sentinel) in batches of 256 records, so that the 32-record vector steps judge
/// them, not only the scalar tail: the flags equal the layout table's rules and every column keeps
/// the raw value. Random whole-range values almost never land on a limit.
@Test(arguments: [DeviceModel.v1, .v2])
func rangeLimitsAreJudgedAlikeByTheVectorSteps(model: DeviceModel) throws {
    let interval: UInt32 = 60, count = 256, size = MetricsRecordLayout.size(for: model)
    let fields = MetricsRecordLayout.fields(for: model)
    func edges(_ field: RecordField) -> [UInt32] {
        var range = field.validRaw
        if field.name == "steps" { range = 0...(MetricsRecordLayout.maximumStepsPerSecond * interval) }
        if field.name == "energy_cal" || field.name == "active_cal" { range = 0...(MetricsRecordLayout.maximumCaloriesPerSecond * interval) }
        let candidates = [0, 1, range.lowerBound &- 1, range.lowerBound, range.lowerBound + 1, range.upperBound - 1,
                          range.upperBound, range.upperBound &+ 1, field.sentinel - 1, field.sentinel, 3, 5]
        return Array(Set(candidates.filter { $0 <= field.sentinel })).sorted()
    }
    var bytes = [UInt8](repeating: 0, count: count * size)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed sequence, so that a failure repeats
    for i in 0..<count {
        for field in fields {
            let choices = edges(field)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = choices[Int((state >> 33) % UInt64(choices.count))]
            for b in 0..<field.width { bytes[i * size + field.offset + b] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(b))) }
        }
    }
    let columns = MetricsColumns(capacity: count)
    let used = bytes.withUnsafeBytes { MetricsDecoder(model: model, intervalSeconds: Int(interval)).decode($0, firstStart: 0, into: columns) }
    #expect(used == bytes.count)
    let flagged = (0..<count).map { columns.outOfRange(at: $0) }
    let expected = (0..<count).map { referenceOutOfRange(Array(bytes[($0 * size)..<(($0 + 1) * size)]), model: model, intervalSeconds: interval) }
    let wrong = (0..<count).filter { flagged[$0] != expected[$0] }
    #expect(wrong.isEmpty, "records \(wrong.prefix(5)): flagged \(wrong.prefix(5).map { flagged[$0].rawValue }), expected \(wrong.prefix(5).map { expected[$0].rawValue })")
    // Each field is flagged in some records and in range in others.
    for bit in 0..<fields.count {
        #expect(flagged.contains { $0.rawValue & (1 << bit) != 0 }, "\(fields[bit].name) never flagged")
        #expect(flagged.contains { $0.rawValue & (1 << bit) == 0 }, "\(fields[bit].name) always flagged")
    }
    let raw: [String: (Int) -> UInt32] = [
        "bpm": { UInt32(columns.bpm[$0]) }, "bpm_q": { UInt32(columns.bpmQ[$0]) }, "breath": { UInt32(columns.breath[$0]) },
        "breath_q": { UInt32(columns.breathQ[$0]) }, "activity": { UInt32(columns.activity[$0]) }, "steps": { UInt32(columns.steps[$0]) },
        "speed": { UInt32(columns.speed[$0]) }, "skin_temp_c": { UInt32(columns.skinTemp[$0]) }, "energy_cal": { columns.energy[$0] },
        "active_cal": { columns.activeEnergy[$0] }, "wearing": { UInt32(columns.wearing[$0]) }, "sleep_stage": { UInt32(columns.stage[$0]) },
        "battery": { UInt32(columns.battery[$0]) }, "spo2": { UInt32(columns.spo2[$0]) }, "spo2_q": { UInt32(columns.spo2Q[$0]) },
        "core_temp_c": { UInt32(columns.coreTemp[$0]) }, "eda_us": { UInt32(columns.eda[$0]) },
    ]
    for field in fields {
        let column = try #require(raw[field.name], "no column for \(field.name)")
        let kept = (0..<count).map(column)
        let written = (0..<count).map { i in
            (0..<field.width).reduce(UInt32(0)) { $0 | UInt32(bytes[i * size + field.offset + $1]) << (8 * UInt32($1)) }
        }
        #expect(kept == written, "\(field.name)")
    }
}
