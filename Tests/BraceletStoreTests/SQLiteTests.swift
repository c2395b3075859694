import Foundation
import Testing
@testable import BraceletStore

@Test func aFailedBindIsAnErrorNeverAStoredNull() throws {
    let db = try Database(path: ":memory:")
    try db.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
    let insert = try db.prepare("INSERT INTO t (a, b) VALUES (?1, ?2)")
    insert.bind(Int64(1), at: 1)
    insert.bind(Int64(2), at: 3)  // no parameter 3: SQLITE_RANGE
    #expect(throws: StoreError.self) { try insert.run() }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    // The statement is usable again after the error.
    insert.bind(Int64(1), at: 1)
    insert.bind(Int64(2), at: 2)
    try insert.run()
    #expect(try db.scalarInt("SELECT b FROM t") == 2)
}

@Test func preparedStatementsAreCompiledOnceAndReused() throws {
    let db = try Database(path: ":memory:")
    let first = try db.prepare("SELECT 1")
    let second = try db.prepare("SELECT 1")
    #expect(first === second)
}

@Test func aNestedTransactionThatFailsUndoesOnlyItsOwnChanges() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("nested.db"), now: fixedClock)
    struct Failure: Error {}
    try store.transaction {
        _ = try store.insertSlots([sampleSlot(start: 60)], device: "SN1", model: .v1)
        #expect(throws: Failure.self) {
            try store.transaction {
                _ = try store.insertSlots([sampleSlot(start: 120)], device: "SN1", model: .v1)
                throw Failure()
            }
        }
    }
    #expect(try store.slots(device: "SN1", from: 0, to: 1000).map(\.start) == [60])
    // An error in the outer transaction rolls back everything inside it.
    #expect(throws: Failure.self) {
        try store.transaction {
            _ = try store.insertSlots([sampleSlot(start: 180)], device: "SN1", model: .v1)
            throw Failure()
        }
    }
    #expect(try store.slots(device: "SN1", from: 0, to: 1000).map(\.start) == [60])
}

/// A savepoint inside a transaction that rewrites many megabytes of rows already in the file (the
/// recompute of a month of V2 days, 0.6 MB each) must commit: SQLite journals the old pages of
/// such a savepoint, and a journal that must move from memory to a temporary file partway through
/// once failed here with SQLITE_FULL on a disk with room to spare.
@Test func aSavepointRewritingManyMegabytesOfStoredRowsCommits() throws {
    let folder = try TemporaryFolder()
    let db = try Database(path: folder.path("big.db"))
    try db.execute("PRAGMA journal_mode = WAL")
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT, extra TEXT)")
    let payload = String(repeating: "x", count: 600_000)
    try db.transaction {
        let insert = try db.prepare("INSERT INTO t (id, payload) VALUES (?1, ?2)")
        for id in 1...40 {
            insert.bind(Int64(id), at: 1)
            insert.bind(payload, at: 2)
            try insert.run()
        }
    }
    try db.transaction {
        try db.transaction {
            let update = try db.prepare("UPDATE t SET extra = ?2 WHERE id = ?1")
            for id in 1...40 {
                update.bind(Int64(id), at: 1)
                update.bind("score input \(id)", at: 2)
                try update.run()
            }
        }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t WHERE extra IS NOT NULL") == 40)
    #expect(try db.scalarInt("SELECT sum(length(payload)) FROM t") == 24_000_000)
}

/// Text bound as UTF-8 bytes is stored as text with exactly those bytes; empty bytes are empty
/// text, never NULL.
@Test func utf8BytesAreBoundAsTextUnchanged() throws {
    let db = try Database(path: ":memory:")
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    let insert = try db.prepare("INSERT INTO t (id, body) VALUES (?1, ?2)")
    let bodies: [[UInt8]] = [Array(#"{"a":"é\u0000","b":[1,2]}"#.utf8), []]
    for (id, body) in bodies.enumerated() {
        insert.bind(Int64(id), at: 1)
        insert.bind(utf8: body, at: 2)
        try insert.run()
    }
    let select = try db.prepare("SELECT typeof(body), body FROM t ORDER BY id")
    var read: [(String?, [UInt8]?)] = []
    while try select.step() {
        read.append((select.text(at: 0), select.withBytes(at: 1) { Array($0) }))
    }
    #expect(read.map(\.0) == ["text", "text"])
    #expect(read.map(\.1) == bodies)
}

/// A write transaction keeps its changed pages in memory until it commits (up to the spill
/// threshold): nothing reaches the WAL before the commit, so no page is written there, read back
/// and journaled again on the way.
@Test func aTransactionsPagesReachTheWALOnlyAtTheCommit() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("spill.db")
    let db = try Database(path: path)
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT)")
    let walSize = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }
    let before = walSize()
    let payload = Array(repeating: UInt8(ascii: "x"), count: 600_000)
    try db.transaction {
        try db.transaction {
            let insert = try db.prepare("INSERT INTO t (id, payload) VALUES (?1, ?2)")
            for id in 1...40 {
                insert.bind(Int64(id), at: 1)
                insert.bind(utf8: payload, at: 2)
                try insert.run()
            }
        }
        #expect(walSize() == before)
    }
    #expect(walSize() > 24_000_000)
    #expect(try db.scalarInt("SELECT sum(length(payload)) FROM t") == 24_000_000)
}
