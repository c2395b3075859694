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
