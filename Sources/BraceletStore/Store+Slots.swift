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

    /// Inserts slots inside an open transaction: in statements of ``slotsPerStatement`` rows where
    /// the store holds no slot of the device in the rows' span (a new file: always), row by row
    /// where it does, so that each row already present is found and counted.
    func insertSlots(_ db: Database, _ slots: [Slot], deviceID: Int64) throws -> InsertReport {
        var report = InsertReport()
        guard !slots.isEmpty else { return report }
        report.insertedInstants.reserveCapacity(slots.count)
        // Looked up once per call, not per statement run: its key is 5 kB of SQL to hash (a twentieth
        // of storing a new file's slots).
        var many: Statement?
        var first = 0
        while first < slots.count {
            let end = min(first + Self.slotsPerStatement, slots.count)
            if end - first == Self.slotsPerStatement, try noSlots(db, deviceID: deviceID, around: slots[first..<end]) {
                if many == nil { many = try db.prepare(Self.insertNewSQL) }
                try insertNew(db, many!, slots[first..<end], deviceID: deviceID, into: &report)
            } else {
                try insertEach(db, slots[first..<end], deviceID: deviceID, into: &report)
            }
            first = end
        }
        return report
    }

    /// Rows per statement of ``insertNew(_:_:deviceID:into:)``: a row costs SQLite much less inside
    /// a statement of many than as a statement of its own (a fifth of a new 30-day ingest's time
    /// went to the 43 200 slot inserts).
    static let slotsPerStatement = 32

    /// The 19 values of a slot row after `device_id`, in the order of the slot columns.
    private func bindValues(of slot: Slot, to statement: Statement, from first: Int32) {
        statement.bind(slot.start, at: first)
        statement.bind(Int64(slot.intervalSeconds), at: first + 1)
        statement.bind(slot.bpm, at: first + 2)
        statement.bind(slot.bpmQuality, at: first + 3)
        statement.bind(slot.breath, at: first + 4)
        statement.bind(slot.breathQuality, at: first + 5)
        statement.bind(slot.steps, at: first + 6)
        statement.bind(slot.activity, at: first + 7)
        statement.bind(slot.speed, at: first + 8)
        statement.bind(slot.energyCal, at: first + 9)
        statement.bind(slot.activeCal, at: first + 10)
        statement.bind(slot.skinTempC, at: first + 11)
        statement.bind(slot.coreTempC, at: first + 12)
        statement.bind(slot.spo2, at: first + 13)
        statement.bind(slot.spo2Quality, at: first + 14)
        statement.bind(slot.edaMicrosiemens, at: first + 15)
        statement.bind(slot.sleepStage, at: first + 16)
        statement.bind(slot.wearing, at: first + 17)
        statement.bind(slot.battery, at: first + 18)
    }

    private static let slotColumnList = """
        slots (device_id, start, interval_s, bpm, bpm_quality, breath,
            breath_quality, steps, activity, speed, energy_cal, active_cal, skin_temp_c, core_temp_c,
            spo2, spo2_quality, eda_us, sleep_stage, wearing, battery)
        """

    /// Whether the store holds no slot of the device between the first and last start of `slots`.
    private func noSlots(_ db: Database, deviceID: Int64, around slots: ArraySlice<Slot>) throws -> Bool {
        guard let from = slots.lazy.map(\.start).min(), let to = slots.lazy.map(\.start).max() else { return true }
        let statement = try db.prepare("SELECT EXISTS (SELECT 1 FROM slots WHERE device_id = ?1 AND start >= ?2 AND start <= ?3)")
        statement.bind(deviceID, at: 1)
        statement.bind(from, at: 2)
        statement.bind(to, at: 3)
        defer { statement.reset() }
        return try statement.step() && statement.int64(at: 0) == 0
    }

    /// Inserts ``slotsPerStatement`` slots the store has none of in their span in one statement
    /// (`statement`, prepared from ``insertNewSQL``): of equal starts the first is stored, as row by row.
    private func insertNew(_ db: Database, _ statement: Statement, _ slots: ArraySlice<Slot>, deviceID: Int64,
                           into report: inout InsertReport) throws {
        statement.bind(deviceID, at: 1)
        var seen = Set<Int64>(minimumCapacity: slots.count)
        var parameter: Int32 = 2
        for slot in slots {
            bindValues(of: slot, to: statement, from: parameter)
            parameter += 19
            if seen.insert(slot.start).inserted { report.insertedInstants.append(slot.start) }
        }
        // Every parameter is bound again before each run: clearing them after it is wasted work.
        try statement.runKeepingBindings()
        guard db.changes == seen.count else {
            throw StoreError.sqlite(code: 0, message: "\(db.changes) of \(seen.count) new slots were stored", sql: statement.sql)
        }
        report.inserted += seen.count
        report.alreadyPresent += slots.count - seen.count
    }

    private static let insertNewSQL = "INSERT OR IGNORE INTO \(slotColumnList) VALUES " + (0..<slotsPerStatement).map { row in
        "(?1, " + (0..<19).map { "?\(2 + 19 * row + $0)" }.joined(separator: ", ") + ")"
    }.joined(separator: ", ")

    private static let insertOneSQL = "INSERT OR IGNORE INTO \(slotColumnList) VALUES (?1, " + (2...20).map { "?\($0)" }.joined(separator: ", ") + ")"

    /// Inserts slots one statement each, counting those the store already has.
    private func insertEach(_ db: Database, _ slots: ArraySlice<Slot>, deviceID: Int64, into report: inout InsertReport) throws {
        let statement = try db.prepare(Self.insertOneSQL)
        statement.bind(deviceID, at: 1)
        defer { statement.reset() }
        for slot in slots {
            bindValues(of: slot, to: statement, from: 2)
            try statement.runKeepingBindings()
            if db.changes == 1 {
                report.inserted += 1
                report.insertedInstants.append(slot.start)
            } else {
                report.alreadyPresent += 1
            }
        }
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
