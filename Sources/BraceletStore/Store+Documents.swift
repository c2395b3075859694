import BraceletDecoder

extension Store {
    /// Keeps `canonical` (whose SHA-256 hex is `hash`) in `documents`, compressed, unless a document
    /// with that hash is already there (a content a summary had before, or another device's equal
    /// content). Call inside the write transaction that refers to it.
    func storeDocument(_ db: Database, hash: String, canonical: [UInt8]) throws {
        let exists = try db.prepare("SELECT 1 FROM documents WHERE content_hash = ?1")
        exists.bind(hash, at: 1)
        let present = try exists.step()
        exists.reset()
        guard !present else { return }
        let insert = try db.prepare("INSERT INTO documents (content_hash, size, body) VALUES (?1, ?2, ?3)")
        insert.bind(hash, at: 1)
        insert.bind(canonical.count, at: 2)
        insert.bind(compressor.compress(canonical), at: 3)
        try insert.run()
    }

    /// The canonical bytes of the document whose `size` and `body` columns are `sizeColumn` and the
    /// one after it in `statement`'s row (NULL: no document).
    ///
    /// - Throws: ``StoreError/corrupt(path:detail:)`` naming `what` when there is no document or it
    ///   does not decompress to its stored size: a summary is never served in part.
    func document(_ statement: Statement, sizeColumn: Int32, what: String) throws -> [UInt8] {
        guard let size = statement.int(at: sizeColumn) else {
            throw StoreError.corrupt(path: path, detail: "\(what) has no stored document; run `bracelet db check --db \(path)`")
        }
        do {
            return try statement.withBytes(at: sizeColumn + 1) { body throws(Zstd.Failure) in try Zstd.decompress(body, size: size) } ?? []
        } catch {
            throw StoreError.corrupt(path: path, detail: "the stored document of \(what) cannot be read: \(error); run `bracelet db check --db \(path)`")
        }
    }

    /// How the documents' columns are joined to a table aliased `alias` with a `content_hash`.
    static func joinDocument(_ alias: String) -> String {
        "LEFT JOIN documents doc ON doc.content_hash = \(alias).content_hash"
    }
}
