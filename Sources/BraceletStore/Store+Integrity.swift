import BraceletDecoder
import Foundation

/// What `bracelet db check` found in one part of the database.
public struct IntegrityFinding: Sendable, Hashable, CustomStringConvertible {
    /// Which check: `pages`, `structure`, `slots`, `beats`, `daily_summaries`, `sleep_sessions`, `vitality_metrics`, `outbox`;
    /// `outside` for rows another program changed (the file holds pages it wrote).
    public var area: String
    /// What is wrong there.
    public var problem: String

    /// Creates a finding.
    public init(area: String, problem: String) {
        self.area = area
        self.problem = problem
    }

    public var description: String { "\(area): \(problem)" }
}

/// Integrity checks: the page checksums, SQLite's structure checks, the row checks of the measurements and the content
/// hashes of stored summaries and outbox payloads.
///
/// Commands that summarise, score or deliver call the ``requireIntactMeasurements(device:)`` family
/// before they use what they read; `bracelet db check` runs ``integrityFindings(full:)``.
extension Store {
    /// SQLite's structure check: `PRAGMA quick_check` (b-tree pages, cell order, free list; linear in
    /// the file size) or, with `full`, `PRAGMA integrity_check` (also that every index matches its
    /// table). Both read every page in use, so a page of the database file that does not match its
    /// checksum is found too, wherever it is. An empty result means no damage was found.
    public func structureFindings(full: Bool) throws -> [IntegrityFinding] {
        try locked { db in
            let statement = try db.prepare(full ? "PRAGMA integrity_check(100)" : "PRAGMA quick_check(100)")
            var problems: [IntegrityFinding] = []
            PageChecksums.clearFailure()
            do {
                while try statement.step() {
                    problems += PageChecksums.structureProblems(inCheckRow: statement.text(at: 0) ?? "")
                        .map { IntegrityFinding(area: "structure", problem: $0) }
                }
            } catch let error as StoreError {
                // A page that failed its checksum where the check cannot go on is reported below.
                switch error {
                case .corrupt, .writtenOutside: guard PageChecksums.failed else { throw error }
                default: throw error
                }
            }
            // The check reports a page that failed its checksum as one it could not get; say why.
            if PageChecksums.failed {
                problems.removeAll { $0.problem.contains("get page") || $0.problem.contains("get the page") }
                let failure = PageChecksums.lastFailure(path: path)
                problems.insert(IntegrityFinding(area: failure.outside ? "outside" : "pages", problem: failure.text), at: 0)
            }
            return problems
        }
    }

    /// Rows of slots and beats (of one device, or all; of the slots starting and beats falling in
    /// `seconds`, Unix seconds, or all) whose stored row check differs from the one recomputed from
    /// their values: damage inside a row.
    public func measurementFindings(device: String? = nil, seconds: Range<Int64>? = nil) throws -> [IntegrityFinding] {
        try locked { db in
            var findings: [IntegrityFinding] = []
            var id: Int64?
            if let device { id = try deviceID(db, serial: device) ?? -1 }
            // Beats are checked per stored hour (BeatChunk): a span that starts inside an hour checks that hour.
            let tables = [("slots", "slots", "start", Self.slotColumns, Int64(1), Int64(0)),
                          ("beats", "beat_chunks", "start_ms", "device_id, start_ms, beats", Int64(1000), BeatChunk.spanMs - 1)]
            for (area, table, key, columns, unit, reach) in tables {
                // Only the conditions given, written out: with "?1 IS NULL OR device_id = ?1" SQLite
                // cannot use the key, and a recompute's span check read the whole table, once per
                // run of days (quadratic in the history).
                let device = id == nil ? "" : "device_id = ?1 AND "
                let span = seconds == nil ? "" : "\(key) >= ?2 AND \(key) < ?3 AND "
                let statement = try db.prepare("""
                    SELECT n, first, (SELECT serial FROM devices WHERE id = device) FROM (
                        SELECT count(*) AS n, min(\(key)) AS first, min(device_id) AS device FROM \(table)
                        WHERE \(device)\(span)row_check IS NOT \(RowCheck.functionName)(\(columns)))
                    """)
                if let id { statement.bind(id, at: 1) }
                if let seconds {
                    // Clamped so that the bounds in milliseconds (less the reach) cannot overflow.
                    let limit = (Int64.max - BeatChunk.spanMs) / 1000
                    statement.bind(max(-limit, min(limit, seconds.lowerBound)) * unit - reach, at: 2)
                    statement.bind(max(-limit, min(limit, seconds.upperBound)) * unit, at: 3)
                }
                guard try statement.step(), let count = statement.int64(at: 0), count > 0 else { continue }
                let first = statement.int64(at: 1).map(String.init) ?? "?"
                let serial = statement.text(at: 2) ?? "an unknown device"
                findings.append(IntegrityFinding(area: area, problem: "\(count) rows changed since they were written (first: \(serial) at \(key) \(first))"))
            }
            return findings
        }
    }

    /// Stored summaries, sleep sessions, vitality metrics and outbox payloads whose content no longer
    /// matches the content hash written with it; `tables` limits the check (default: all of them).
    /// The documents the summaries and outbox entries refer to are checked once, whichever of those
    /// tables asked.
    public func contentFindings(tables: Set<String> = ["daily_summaries", "sleep_sessions", "vitality_metrics", "outbox"]) throws -> [IntegrityFinding] {
        try locked { db in
            var findings: [IntegrityFinding] = []
            for table in ["daily_summaries", "sleep_sessions"] where tables.contains(table) {
                let missing = try db.scalarInt("""
                    SELECT count(*) FROM \(table) s WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.content_hash = s.content_hash)
                    """) ?? 0
                if missing > 0 { findings.append(IntegrityFinding(area: table, problem: "\(missing) rows whose document is missing")) }
            }
            if tables.contains("vitality_metrics") {
                let statement = try db.prepare("SELECT rowid, json, content_hash FROM vitality_metrics")
                var bad = 0
                while try statement.step() {
                    let json = statement.text(at: 1) ?? ""
                    if SHA256.hex(Data(json.utf8)) != statement.text(at: 2) { bad += 1 }
                }
                if bad > 0 { findings.append(IntegrityFinding(area: "vitality_metrics", problem: "\(bad) rows whose JSON does not match its content hash")) }
            }
            if !tables.isDisjoint(with: ["daily_summaries", "sleep_sessions", "outbox"]) {
                let statement = try db.prepare("SELECT content_hash, size, body FROM documents")
                var bad = 0
                while try statement.step() {
                    if !Self.documentMatches(statement, hashColumn: 0) { bad += 1 }
                }
                if bad > 0 { findings.append(IntegrityFinding(area: "documents", problem: "\(bad) summary documents whose content does not match its content hash")) }
            }
            guard tables.contains("outbox") else { return findings }
            return findings + (try outboxFindings(db, pendingOnly: false, documentsChecked: true))
        }
    }

    /// Whether the document in `statement`'s row (content hash, size and body from `hashColumn` on)
    /// decompresses to its size and hashes to its content hash.
    static func documentMatches(_ statement: Statement, hashColumn: Int32) -> Bool {
        guard let hash = statement.text(at: hashColumn), let size = statement.int(at: hashColumn + 1),
              let bytes = try? statement.withBytes(at: hashColumn + 2, { body throws(Zstd.Failure) in try Zstd.decompress(body, size: size) })
        else { return false }
        return SHA256.hex(bytes) == hash
    }

    /// The outbox entries (all, or only those still to be delivered) whose payload no longer matches
    /// its key and content hash. An envelope that refers to its document is checked by its header
    /// and the document's presence, and, unless `documentsChecked` says every document was just
    /// checked, by the document's content too.
    private func outboxFindings(_ db: Database, pendingOnly: Bool, documentsChecked: Bool) throws -> [IntegrityFinding] {
        let outbox = try db.prepare("""
            SELECT o.id, o.key, o.content_hash, o.payload, doc.content_hash, doc.size\(documentsChecked ? "" : ", doc.body") FROM outbox o
            \(Store.joinDocument("o"))\(pendingOnly ? " WHERE o.state = 'pending'" : "")
            """)
        var bad: [Int64] = []
        while try outbox.step() {
            let key = outbox.text(at: 1), hash = outbox.text(at: 2)
            let intact = outbox.withBytes(at: 3) { raw -> Bool in
                let payload = raw.assumingMemoryBound(to: UInt8.self)
                guard let key, let hash, let summary = StoredEnvelope.summaryRange(in: payload),
                      payload[summary].elementsEqual(StoredEnvelope.reference) else {
                    return Self.payloadMatches(key: key, hash: hash, payload: String(decoding: raw, as: UTF8.self))
                }
                return Self.headerMatches(key: key, hash: hash, payload: payload, summary: summary)
                    && !outbox.isNull(at: 4) && (documentsChecked || Self.documentMatches(outbox, hashColumn: 4))
            } ?? false
            if !intact { bad.append(outbox.int64(at: 0) ?? -1) }
        }
        guard !bad.isEmpty else { return [] }
        return [IntegrityFinding(area: "outbox", problem: "\(bad.count) entries whose payload does not match its key and content hash (ids \(bad.prefix(5).map(String.init).joined(separator: ", ")))")]
    }

    /// Throws ``StoreError/corrupt(path:detail:)`` unless the structure check passes and every outbox
    /// entry still to be delivered matches its key and content hash: what a delivery needs before
    /// it sends, and a command that writes before it appends. Its cost follows the file's size (the
    /// structure check reads every page, so a page changed on disk since bracelet wrote it fails its
    /// checksum wherever it is) and the backlog, never the number of documents ever stored: a
    /// gateway opens the file at every sync. Delivered and dead entries are not read (whole-outbox
    /// checks are `bracelet db check`'s); a summary document read elsewhere is guarded by its zstd
    /// frame's content checksum, and hashed by `db check`.
    ///
    /// Pages another SQLite program put into the file (read as unsealed by the structure check, or
    /// written unsealed by a checkpoint of this connection) are verified and sealed again first
    /// (``sealOutsideWrites()``); the report says what was found.
    @discardableResult
    public func requireIntactForDelivery() throws -> OutsideWriteReport? {
        if let first = try structureFindings(full: false).first {
            let detail = "\(first.problem); run `bracelet db check --db \(path)`"
            throw first.area == "outside" ? StoreError.writtenOutside(path: path, detail: detail) : StoreError.corrupt(path: path, detail: detail)
        }
        let outside = try locked({ PageChecksums.takeUnsealed($0) }).isEmpty ? nil : try sealOutsideWrites()
        if let first = try locked({ db in try outboxFindings(db, pendingOnly: true, documentsChecked: false) }).first {
            throw StoreError.corrupt(path: path, detail: "\(first); run `bracelet db check --db \(path)`")
        }
        return outside
    }

    /// Everything `bracelet db check` checks; `full` runs `integrity_check` instead of `quick_check`.
    /// Damaged pages and structure damage are reported alone: reading rows of a damaged file is not
    /// meaningful.
    /// Rows that fail their checks in a file another program wrote to are reported as written from
    /// outside (area `outside`), not as damage.
    /// With such pages, SQLite's full `integrity_check` runs whatever `full` says.
    public func integrityFindings(full: Bool) throws -> [IntegrityFinding] {
        let pages = try pageFindings()
        let outside = try outsideWrites()
        let structure = try structureFindings(full: full || outside != nil)
        guard pages.isEmpty, structure.isEmpty else { return pages + structure.filter { !["pages", "outside"].contains($0.area) || pages.isEmpty } }
        let rows = try measurementFindings() + contentFindings()
        guard !rows.isEmpty, let outside else { return rows }
        return rows.map { IntegrityFinding(area: "outside", problem: "\(outside.what); rows no longer match what bracelet wrote: \($0)") }
    }

    /// Throws ``StoreError/corrupt(path:detail:)`` when a slot or beat of `device` (in `seconds`, Unix
    /// seconds, when given) changed since it was written: call before summarising them. A
    /// recomputation that checks the span it reads never stores a summary of damaged rows, nor
    /// appends beside them, at a cost that grows with the span, not with the database.
    public func requireIntactMeasurements(device: String, seconds: Range<Int64>? = nil) throws {
        if try locked({ db in try loadedEverySample(db) }) { return }
        if let first = try measurementFindings(device: device, seconds: seconds).first {
            throw StoreError.corrupt(path: path, detail: "\(first); run `bracelet db check --db \(path)`")
        }
    }

    /// Throws ``StoreError/corrupt(path:detail:)`` when a stored row of `table` (`vitality_metrics`,
    /// `outbox`, ...) no longer matches its content hash: call before scoring or delivering them.
    public func requireIntactContent(of table: String) throws {
        if let first = try contentFindings(tables: [table]).first {
            throw StoreError.corrupt(path: path, detail: "\(first); run `bracelet db check --db \(path)`")
        }
    }

    /// The slot columns in table order, as the row check hashes them.
    static let slotColumns = """
        device_id, start, interval_s, bpm, bpm_quality, breath, breath_quality, steps, activity, speed, energy_cal, \
        active_cal, skin_temp_c, core_temp_c, spo2, spo2_quality, eda_us, sleep_stage, wearing, battery
        """

    /// Whether an outbox payload still is the envelope written for `key`, carrying a summary whose
    /// canonical form hashes to `hash`.
    static func payloadMatches(key: String?, hash: String?, payload: String?) -> Bool {
        guard let key, let hash, var payload else { return false }
        // The layout the outbox writes, checked without parsing the summary; anything else is parsed.
        if payload.withUTF8({ envelopeMatches(key: key, hash: hash, payload: $0) }) { return true }
        guard let envelope = try? CanonicalJSONParser.parse(Array(payload.utf8), what: "outbox payload"),
              envelope.string(forKey: "key") == key, envelope.string(forKey: "content_hash") == hash,
              let summary = envelope.value(forKey: "summary")
        else { return false }
        var canonical: [UInt8] = []
        CanonicalJSON.write(summary, into: &canonical)
        return SHA256.hex(canonical) == hash
    }
}
