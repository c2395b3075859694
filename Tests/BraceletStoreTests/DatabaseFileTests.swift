import BraceletDecoder
import Foundation
import Testing
@testable import BraceletStore

@Test func newDatabaseFileHasMode0600() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("private.db")
    let previous = umask(0o022)
    defer { umask(previous) }
    let store = try Store(path: path)
    _ = try store.insertSlots([sampleSlot(start: 1)], device: "SN1", model: .v1)
    for file in [path, path + "-wal"] {
        var info = stat()
        #expect(stat(file, &info) == 0, "\(file) should exist")
        #expect(info.st_mode & 0o777 == 0o600, "\(file) has mode \(String(info.st_mode & 0o777, radix: 8))")
    }
}

@Test func migratesFromEmptyAndReopensWithoutLosingData() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("a.db")
    do {
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Store.currentSchemaVersion)
        #expect(Store.currentSchemaVersion == 19)
        _ = try store.insertSlots([sampleSlot(start: 10)], device: "SN1", model: .v1)
    }
    let reopened = try Store(path: path)
    #expect(try reopened.schemaVersion() == Store.currentSchemaVersion)
    #expect(try reopened.slots(device: "SN1", from: 0, to: 100).map(\.start) == [10])
}

@Test func migratesAnOlderFileInOrderKeepingItsRows() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("old.db")
    do {
        // A file written by a build that knew only migration 1 (devices, slots, beats, transfers).
        let old = try Store(path: path, migratingTo: 1)
        #expect(try old.schemaVersion() == 1)
        _ = try old.insertSlots([sampleSlot(start: 42)], device: "SN1", model: .v1)
        #expect(throws: StoreError.self) { try old.outboxCounts() }
    }
    let store = try Store(path: path)
    #expect(try store.schemaVersion() == Store.currentSchemaVersion)
    #expect(try store.slots(device: "SN1", from: 0, to: 100).map(\.start) == [42])
    #expect(try store.outboxCounts() == OutboxCounts(pending: 0, delivered: 0, dead: 0))
}

@Test func refusesASchemaNewerThanThisBuild() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("future.db")
    let future = Store.currentSchemaVersion + 1
    do {
        let db = try Database(path: path)
        try db.execute("PRAGMA user_version = \(future)")
    }
    #expect(throws: StoreError.schemaNewerThanBuild(path: path, found: future, supported: Store.currentSchemaVersion)) { try Store(path: path) }
}

@Test func aFileThatIsNotADatabaseGivesAClearError() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("garbage.db")
    let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    try garbage.write(to: URL(fileURLWithPath: path))
    #expect(throws: StoreError.notADatabase(path: path)) { try Store(path: path) }
    let message = StoreError.notADatabase(path: path).description
    #expect(message.contains(path) && message.contains("not a bracelet database"))
    // The store did not overwrite the file.
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
}

@Test func aMissingFolderGivesCannotOpen() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("no/such/folder/a.db")
    #expect {
        try Store(path: path)
    } throws: { error in
        guard case let StoreError.cannotOpen(failedPath, reason) = error else { return false }
        return failedPath == path && reason.contains("No such file")
    }
}

@Test func aLockedDatabaseFailsWithLockedAfterTheBusyTimeout() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("a.db")
    let store = try Store(path: path, busyTimeoutMilliseconds: 100)
    let other = try Database(path: path)
    try other.execute("BEGIN IMMEDIATE")
    defer { try? other.execute("ROLLBACK") }
    #expect {
        try store.insertSlots([sampleSlot(start: 1)], device: "SN1", model: .v1)
    } throws: { error in
        guard case StoreError.locked = error else { return false }
        return "\(error)".contains("locked by another process")
    }
}

@Test func aFullDiskRollsBackTheWholeBatchAndKeepsEarlierCommits() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("a.db")
    let store = try Store(path: path)
    _ = try store.insertSlots((0..<10).map { sampleSlot(start: Int64($0) * 60) }, device: "SN1", model: .v1)
    // Simulate a full disk: the file may not grow past its current size (SQLITE_FULL).
    try store.locked { db in
        let pages = try db.scalarInt("PRAGMA page_count") ?? 0
        _ = try db.scalarInt("PRAGMA max_page_count = \(pages)")
    }
    let big = (10..<20_000).map { sampleSlot(start: Int64($0) * 60, steps: $0) }
    #expect(throws: StoreError.diskFull(path: path)) { try store.insertSlots(big, device: "SN1", model: .v1) }
    #expect(try store.slots(device: "SN1", from: 0, to: .max).count == 10, "nothing of the failed batch, nothing earlier lost")
}

/// Opening a second connection to a file must not drop the locks SQLite holds for the first one:
/// closing any descriptor of a file releases all of a process's POSIX locks on it, and without its
/// shared lock another process may checkpoint and delete the WAL under the first connection, which
/// then reads old pages. An open file description lock (OFD, Linux) conflicts with this process's
/// own POSIX locks, so asking for one shows whether the shared lock is still held.
@Test func aSecondConnectionKeepsTheFirstConnectionsLock() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("two.db")
    let first = try Store(path: path)
    _ = try first.insertSlots([sampleSlot(start: 1)], device: "SN1", model: .v1)
    // The probe's own descriptor is closed only at the end: closing it drops the locks under test.
    let probe = open(path, O_RDWR | O_CLOEXEC)
    try #require(probe >= 0, "cannot open \(path) to probe its locks")
    defer { close(probe) }
    #expect(try sharedLockIsHeld(probe))
    let second = try Database(path: path)
    #expect(try second.scalarInt("SELECT count(*) FROM slots") == 1)
    #expect(try sharedLockIsHeld(probe), "opening a second connection released the first one's lock")
}

/// Whether some POSIX lock covers SQLite's shared-lock bytes (from 2^30 + 2, 510 bytes) of the file
/// open as `fd`.
private func sharedLockIsHeld(_ fd: Int32) throws -> Bool {
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = 0x4000_0002
    lock.l_len = 510
    let getOFDLock: Int32 = 36  // F_OFD_GETLK from <fcntl.h>, not exported to Swift
    guard fcntl(fd, getOFDLock, &lock) == 0 else { throw POSIXError(.EINVAL) }
    return lock.l_type != Int16(F_UNLCK)
}

/// The journal mode of the store's connection, asked from inside or outside a transaction.
private func journalMode(_ store: Store) throws -> String? {
    try store.locked { try $0.scalarText("PRAGMA journal_mode") }
}

@Test func loadingANewDatabaseSkipsTheLogAndTurnsItBackOn() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("load.db")
    let store = try Store(path: path)
    var modeInside: String?
    var skipsRowChecks = false
    try store.loadingTransaction {
        modeInside = try journalMode(store)
        _ = try store.insertSlots([sampleSlot(start: 60), sampleSlot(start: 120)], device: "SN1", model: .v1)
        skipsRowChecks = try store.locked { try store.loadedEverySample($0) }
    }
    #expect(modeInside == "delete")
    #expect(skipsRowChecks)
    #expect(try !store.locked { try store.loadedEverySample($0) })
    #expect(try journalMode(store) == "wal")
    #expect(try store.slots(device: "SN1", from: 0, to: 200).map(\.start) == [60, 120])
    #expect(try store.integrityFindings(full: true).isEmpty)
    #expect(try store.pageFindings().isEmpty)
    // Reopened, the file is a WAL database holding the rows.
    let reopened = try Store(path: path)
    #expect(try journalMode(reopened) == "wal")
    #expect(try reopened.slots(device: "SN1", from: 0, to: 200).count == 2)
}

@Test func aLoadOfSeveralTransactionsSkipsTheLogAndTheRowChecksOfItsOwnRows() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("session.db")
    let store = try Store(path: path)
    var modes: [String?] = []
    var ownRows: [Bool] = []
    try store.loading {
        for start in [Int64(60), 120] {
            try store.transaction { _ = try store.insertSlots([sampleSlot(start: start)], device: "SN1", model: .v1) }
            modes.append(try journalMode(store))
            ownRows.append(try store.locked { try store.loadedEverySample($0) })
        }
        try store.requireIntactMeasurements(device: "SN1", seconds: 0..<200)
    }
    #expect(modes == ["delete", "delete"])
    #expect(ownRows == [true, true])
    #expect(try !store.locked { try store.loadedEverySample($0) })
    #expect(try journalMode(store) == "wal")
    #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    #expect(try store.integrityFindings(full: true).isEmpty)
    #expect(try Store(path: path).slots(device: "SN1", from: 0, to: 200).map(\.start) == [60, 120])
}

@Test func aLoadWhileAnotherConnectionHasTheFileKeepsTheLogAndTheRowChecks() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("shared.db")
    let store = try Store(path: path)
    let other = try Database(path: path)
    _ = try other.scalarInt("SELECT count(*) FROM slots")
    var mode: String?
    var ownRows = true
    try store.loading {
        _ = try store.insertSlots([sampleSlot(start: 60)], device: "SN1", model: .v1)
        mode = try journalMode(store)
        ownRows = try store.locked { try store.loadedEverySample($0) }
    }
    #expect(mode == "wal")
    #expect(!ownRows)
    #expect(try other.scalarInt("SELECT count(*) FROM slots") == 1)
}

@Test func loadingADatabaseWithSamplesKeepsTheLog() throws {
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("full.db"))
    _ = try store.insertSlots([sampleSlot(start: 60)], device: "SN1", model: .v1)
    var modeInside: String?
    var skipsRowChecks = true
    try store.loadingTransaction {
        modeInside = try journalMode(store)
        _ = try store.insertSlots([sampleSlot(start: 120)], device: "SN1", model: .v1)
        skipsRowChecks = try store.locked { try store.loadedEverySample($0) }
    }
    #expect(modeInside == "wal")
    #expect(!skipsRowChecks)
    #expect(try store.slots(device: "SN1", from: 0, to: 200).count == 2)
}

@Test func aFailedLoadLeavesANewDatabaseEmptyAndInWALMode() throws {
    struct Stop: Error {}
    let folder = try TemporaryFolder()
    let store = try Store(path: folder.path("undone.db"))
    #expect(throws: Stop.self) {
        try store.loadingTransaction {
            _ = try store.insertSlots([sampleSlot(start: 60)], device: "SN1", model: .v1)
            throw Stop()
        }
    }
    #expect(try store.slots(device: "SN1", from: 0, to: 200).isEmpty)
    #expect(try journalMode(store) == "wal")
}
