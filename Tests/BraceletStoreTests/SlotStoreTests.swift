import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

@Test func reDeliveredSlotsChangeNothing() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    let first = [sampleSlot(start: 1_000), sampleSlot(start: 1_060), sampleSlot(start: 1_120)]
    let report1 = try store.insertSlots(first, device: "SN1", model: .v1)
    #expect(report1.inserted == 3)
    #expect(report1.alreadyPresent == 0)

    // The same three again, one of them with different values, plus one new slot.
    var changed = sampleSlot(start: 1_060, bpm: 99)
    changed.steps = 12
    let report2 = try store.insertSlots([first[0], changed, first[2], sampleSlot(start: 1_180)], device: "SN1", model: .v1)
    #expect(report2.inserted == 1)
    #expect(report2.alreadyPresent == 3)
    #expect(report2.insertedInstants == [1_180])

    let stored = try store.slots(device: "SN1", from: 0, to: 2_000)
    #expect(stored.map(\.start) == [1_000, 1_060, 1_120, 1_180])
    #expect(stored[1] == first[1], "the first delivery wins; a re-delivery never overwrites")
    // Same timestamp on another device is another slot.
    #expect(try store.insertSlots([first[0]], device: "SN2", model: .v2).inserted == 1)
}

@Test func nilFieldsRoundTripAsNilAndZeroAsZero() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    var full = Slot(start: 1_700_000_000, intervalSeconds: 60)
    full.bpm = 0
    full.bpmQuality = 0
    full.breath = 14.5
    full.breathQuality = 3
    full.steps = 0
    full.activity = 2
    full.speed = 1.25
    full.energyCal = 1_200
    full.activeCal = 0
    full.skinTempC = 33.1
    full.coreTempC = 36.9
    full.spo2 = 97
    full.spo2Quality = 4
    full.edaMicrosiemens = 0.75
    full.sleepStage = 3
    full.wearing = 4
    full.battery = 81
    let empty = Slot(start: 1_700_000_060, intervalSeconds: 60)
    _ = try store.insertSlots([full, empty], device: "SN1", model: .v2)
    let back = try store.slots(device: "SN1", from: 1_700_000_000, to: 1_700_000_120)
    #expect(back == [full, empty])
    #expect(back[1].bpm == nil)
    #expect(back[0].steps == 0)
    // Half-open range: `to` is excluded.
    #expect(try store.slots(device: "SN1", from: 1_700_000_000, to: 1_700_000_060) == [full])
    #expect(try store.slots(device: "nobody", from: 0, to: .max) == [])
}

@Test func beatsAreIdempotentAndKeepNilIntervals() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    let beats = [Beat(timeMs: 1_700_000_000_500, rrMs: nil), Beat(timeMs: 1_700_000_001_400, rrMs: 900)]
    #expect(try store.insertBeats(beats, device: "SN1", model: .v1).inserted == 2)
    let again = try store.insertBeats(beats + [Beat(timeMs: 1_700_000_002_250, rrMs: 850)], device: "SN1", model: .v1)
    #expect(again.inserted == 1)
    #expect(again.alreadyPresent == 2)
    #expect(again.insertedInstants == [1_700_000_002])
    let back = try store.beats(device: "SN1", fromMs: 0, toMs: .max)
    #expect(back.map(\.rrMs) == [nil, 900, 850])
}

@Test func touchedLocalDatesListOnlyDaysWithNewSlots() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"))
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    // 2023-11-14 14:59 UTC = 23:59 Tokyo; 15:00 UTC = 00:00 Tokyo on the 15th.
    let before = Int64(1_699_973_940)
    let after = Int64(1_699_974_000)
    let report = try store.insertSlots([sampleSlot(start: before), sampleSlot(start: after)], device: "SN1", model: .v1)
    #expect(report.touchedLocalDates(in: tokyo) == ["2023-11-14", "2023-11-15"])
    let again = try store.insertSlots([sampleSlot(start: before), sampleSlot(start: after)], device: "SN1", model: .v1)
    #expect(again.touchedLocalDates(in: tokyo) == [])
}

@Test func devicesRecordModelAndFirstSeen() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("a.db"), now: fixedClock)
    _ = try store.insertSlots([sampleSlot(start: 1)], device: "SN2", model: .v2)
    _ = try store.insertBeats([Beat(timeMs: 5, rrMs: nil)], device: "SN2", model: nil)
    let devices = try store.devices()
    #expect(devices == [DeviceRecord(serial: "SN2", model: .v2, firstSeenAt: 1_700_000_000, lastSeenAt: 1_700_000_000)])
    #expect(throws: StoreError.self) { try store.insertSlots([sampleSlot(start: 1)], device: "", model: nil) }
}

@Test func emptyBlobStaysAnEmptyBlobNotNull() throws {
    let db = try Database(path: ":memory:")
    try db.execute("CREATE TABLE t (b BLOB)")
    let insert = try db.prepare("INSERT INTO t VALUES (?1)")
    insert.bind(Data(), at: 1)
    try insert.run()
    insert.bind(Data?.none, at: 1)
    try insert.run()
    let select = try db.prepare("SELECT b FROM t ORDER BY rowid")
    #expect(try select.step())
    #expect(select.data(at: 0) == Data())
    #expect(try select.step())
    #expect(select.data(at: 0) == nil)
}
