import BraceletDecoder
import BraceletProtocol
import Foundation

/// What an insert of slots or beats did: how many rows were new and how many the store already had.
public struct InsertReport: Sendable, Equatable {
    /// Rows written now.
    public var inserted: Int
    /// Rows the store already had for the same device and timestamp (left untouched).
    public var alreadyPresent: Int
    /// Unix seconds of every newly inserted row, in input order: what the summaries must be
    /// recomputed for.
    public var insertedInstants: [Int64]

    /// An empty report.
    public init() {
        inserted = 0
        alreadyPresent = 0
        insertedInstants = []
    }

    /// The local dates (`YYYY-MM-DD`, sorted) that the newly inserted rows fall on in `timeZone`:
    /// the days whose summaries must be recomputed. Empty when nothing new was inserted.
    public func touchedLocalDates(in timeZone: TimeZone) -> [String] {
        LocalDates.dates(ofUnixSeconds: insertedInstants, in: timeZone)
    }
}

extension Store {
    /// Stores `slots` of device `device`, all in one transaction with one prepared statement.
    ///
    /// Idempotent: a slot whose (device, start) the store already has is ignored, never overwritten,
    /// so a re-delivered file changes nothing.
    ///
    /// - Returns: inserted vs already-present counts and the starts of the new slots.
    public func insertSlots(_ slots: [Slot], device: String, model: DeviceModel?) throws -> InsertReport {
        try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: model)
            return try insertSlots(db, slots, deviceID: deviceID)
        }
    }

    /// Inserts slots inside an open transaction.
    func insertSlots(_ db: Database, _ slots: [Slot], deviceID: Int64) throws -> InsertReport {
        var report = InsertReport()
        guard !slots.isEmpty else { return report }
        let statement = try db.prepare("""
            INSERT OR IGNORE INTO slots (device_id, start, interval_s, bpm, bpm_quality, breath,
                breath_quality, steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c,
                spo2, spo2_quality, eda_us, sleep_stage, wearing, battery)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            """)
        report.insertedInstants.reserveCapacity(slots.count)
        statement.bind(deviceID, at: 1)
        defer { statement.reset() }
        for slot in slots {
            statement.bind(slot.start, at: 2)
            statement.bind(Int64(slot.intervalSeconds), at: 3)
            statement.bind(slot.bpm, at: 4)
            statement.bind(slot.bpmQuality, at: 5)
            statement.bind(slot.breath, at: 6)
            statement.bind(slot.breathQuality, at: 7)
            statement.bind(slot.steps, at: 8)
            statement.bind(slot.activity, at: 9)
            statement.bind(slot.speed, at: 10)
            statement.bind(slot.energyCal, at: 11)
            statement.bind(slot.activeCal, at: 12)
            statement.bind(slot.skinTempC, at: 13)
            statement.bind(slot.coreTempC, at: 14)
            statement.bind(slot.spo2, at: 15)
            statement.bind(slot.spo2Quality, at: 16)
            statement.bind(slot.edaMicrosiemens, at: 17)
            statement.bind(slot.sleepStage, at: 18)
            statement.bind(slot.wearing, at: 19)
            statement.bind(slot.battery, at: 20)
            try statement.runKeepingBindings()
            if db.changes == 1 {
                report.inserted += 1
                report.insertedInstants.append(slot.start)
            } else {
                report.alreadyPresent += 1
            }
        }
        return report
    }

    /// The slots of `device` whose start lies in `[from, to)` (Unix seconds), ordered by start.
    /// Fields stored as NULL come back `nil`. Empty for an unknown device.
    public func slots(device: String, from: Int64, to: Int64) throws -> [Slot] {
        try locked { db in
            guard let deviceID = try deviceID(db, serial: device) else { return [] }
            let statement = try db.prepare("""
                SELECT start, interval_s, bpm, bpm_quality, breath, breath_quality, steps, activity, speed,
                    energy_cal, active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us,
                    sleep_stage, wearing, battery
                FROM slots WHERE device_id = ?1 AND start >= ?2 AND start < ?3 ORDER BY start
                """)
            statement.bind(deviceID, at: 1)
            statement.bind(from, at: 2)
            statement.bind(to, at: 3)
            var result: [Slot] = []
            // Sized once (a count over the key's range): an array grown by doubling holds up to
            // twice the slots of a recompute's span.
            let count = try db.prepare("SELECT count(*) FROM slots WHERE device_id = ?1 AND start >= ?2 AND start < ?3")
            count.bind(deviceID, at: 1)
            count.bind(from, at: 2)
            count.bind(to, at: 3)
            if try count.step(), let rows = count.int(at: 0) { result.reserveCapacity(rows) }
            count.reset()
            while try statement.step() {
                var slot = Slot(start: statement.int64(at: 0) ?? 0,
                                intervalSeconds: Int32(clamping: statement.int64(at: 1) ?? 0))
                slot.bpm = statement.int(at: 2)
                slot.bpmQuality = statement.int(at: 3)
                slot.breath = statement.double(at: 4)
                slot.breathQuality = statement.int(at: 5)
                slot.steps = statement.int(at: 6)
                slot.activity = statement.int(at: 7)
                slot.speed = statement.double(at: 8)
                slot.energyCal = statement.int(at: 9)
                slot.activeCal = statement.int(at: 10)
                slot.skinTempC = statement.double(at: 11)
                slot.coreTempC = statement.double(at: 12)
                slot.spo2 = statement.int(at: 13)
                slot.spo2Quality = statement.int(at: 14)
                slot.edaMicrosiemens = statement.double(at: 15)
                slot.sleepStage = statement.int(at: 16)
                slot.wearing = statement.int(at: 17)
                slot.battery = statement.int(at: 18)
                result.append(slot)
            }
            return result
        }
    }
}
