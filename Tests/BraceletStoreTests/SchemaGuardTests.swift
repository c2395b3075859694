import Foundation
import Testing
@testable import BraceletStore

/// Runs SQL on a file with a plain connection, as another program would.
private func tamper(_ path: String, _ sql: String) throws {
    let db = try Database(path: path)
    try db.execute(sql)
}

@Suite struct SchemaGuardTests {
    @Test func aNegativeSchemaVersionIsRefusedNotATrap() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("minus.db")
        try tamper(path, "CREATE TABLE t(x); PRAGMA user_version = -1")
        #expect(throws: StoreError.foreignSchema(path: path, detail: "its schema version is -1, which no build of bracelet writes")) {
            try Store(path: path)
        }
        #expect(throws: StoreError.self) { try Store(path: path, readOnly: true) }
        #expect(try Database(path: path).userVersion() == -1)
    }

    @Test func anotherProgramsDatabaseIsLeftUntouched() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("other.db")
        try tamper(path, "CREATE TABLE notes(body TEXT)")
        #expect(throws: StoreError.foreignSchema(path: path, detail: "it holds tables bracelet did not create (notes)")) {
            try Store(path: path)
        }
        #expect(try Migrations.schemaObjects(Database(path: path)).map { $0[1] } == ["notes"])
    }

    /// A new file is made from LatestSchema, not by the migrations: both must give the same
    /// objects, SQL text included, and a file migrated from version 1 must end the same.
    @Test func theLatestSchemaIsWhatTheMigrationsMake() throws {
        let memory = try Database(path: ":memory:")
        for statement in LatestSchema.statements { try memory.execute(statement) }
        let made = try Migrations.schemaObjects(memory)
        let migrated = try Migrations.expectedObjects()
        #expect(made.map { $0[1] } == migrated.map { $0[1] })
        for (got, want) in zip(made, migrated) where got != want {
            Issue.record("\(want[0]) \(want[1]) differs: set its statement in LatestSchema.swift to the migrations' SQL:\n\(want[3])")
        }
        let folder = try TemporaryFolder()
        let stepwise = folder.path("stepwise.db")
        let old = try Database(path: stepwise)
        try Migrations.migrate(old, upTo: 1)
        try Migrations.migrate(old)
        #expect(try Migrations.schemaObjects(old) == migrated)
        #expect(try old.userVersion() == Migrations.latestVersion)
    }

    @Test func theSchemaDigestIsCurrent() throws {
        let digest = Migrations.schemaDigest(try Migrations.expectedObjects())
        #expect(digest == Migrations.latestSchemaDigest, "set Migrations.latestSchemaDigest to \"\(digest)\"")
        // A new file's schema has it, so its open does not build the expected schema.
        let folder = try TemporaryFolder()
        let path = folder.path("new.db")
        _ = try Store(path: path)
        #expect(Migrations.schemaDigest(try Migrations.schemaObjects(Database(path: path))) == digest)
    }

    @Test func aChangedTableIsNamedAtOpen() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("changed.db")
        _ = try Store(path: path)
        try tamper(path, "ALTER TABLE devices DROP COLUMN model; DROP INDEX delivery_log_by_outbox; CREATE TABLE mine(x)")
        let error = #expect(throws: StoreError.self) { try Store(path: path) }
        guard case .foreignSchema(_, let detail) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(detail == "its tables differ from bracelet's schema version \(Store.currentSchemaVersion) (missing index delivery_log_by_outbox; not bracelet's: table mine; changed: table devices)")
    }

    @Test func readingAnEmptyFileWritesNothingIntoIt() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("empty.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(throws: StoreError.noBraceletData(path: path)) { try Store(path: path, readOnly: true) }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseThisUserCannotWriteCanStillBeRead() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("kept.db")
        do {
            let store = try Store(path: path)
            _ = try store.insertSlots([sampleSlot(start: 60)], device: "SN1", model: .v1)
        }
        #expect(chmod(path, 0o444) == 0)
        let store = try Store(path: path, readOnly: true)
        #expect(try store.slots(device: "SN1", from: 0, to: 1_000).map(\.start) == [60])
    }

    @Test func aNamedPipeIsRefusedWithoutBlocking() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("pipe.db")
        #expect(mkfifo(path, 0o600) == 0)
        let error = #expect(throws: StoreError.self) { try Store(path: path) }
        #expect(error?.description.hasPrefix("\(path) is a named pipe (FIFO), not a database") == true)
    }
}

@Test func readingAnOlderBraceletDatabaseUpgradesItKeepingItsRows() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("v3.db")
    do {
        let old = try Store(path: path, migratingTo: 3)
        try old.locked { try $0.execute("INSERT INTO devices (id, serial, first_seen_at, last_seen_at) VALUES (1, 'SN1', 0, 0); INSERT INTO slots (device_id, start, interval_s, bpm) VALUES (1, 60, 60, 58)") }
    }
    let store = try Store(path: path, readOnly: true)
    #expect(try store.schemaVersion() == Store.currentSchemaVersion)
    #expect(try store.slots(device: "SN1", from: 0, to: 100).map(\.bpm) == [58])
}
