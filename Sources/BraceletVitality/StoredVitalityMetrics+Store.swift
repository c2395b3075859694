import BraceletStore

extension StoredVitalityMetrics {
    /// Every stored day of `device`, decoded for the window builder: what `bracelet score --db`
    /// scores (a row without an age takes `age`).
    ///
    /// - Throws: the store's errors, and ``StoredVitalityMetricsError`` for the first row that
    ///   cannot be read.
    public static func days(in store: Store, device: String, age: Int) throws -> [DatedVitalityMetrics] {
        try store.vitalityMetrics(device: device, fromDate: "0000-01-01", toDate: "9999-12-31").map { row in
            try decode(localDate: row.localDate, json: row.json, age: age)
        }
    }
}
