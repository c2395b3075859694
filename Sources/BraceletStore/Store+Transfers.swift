import BraceletDecoder
import BraceletProtocol

/// Where a file transfer from a bracelet stands.
public enum TransferState: String, Sendable, Equatable {
    /// Bytes are still being downloaded and committed.
    case receiving
    /// Every byte of the sealed file is committed; erasing it on the bracelet is now safe.
    case committed
    /// The bracelet was told to erase the file after it was committed.
    case erased
}

/// Progress of one file transfer (one device, one file kind).
public struct TransferProgress: Sendable, Equatable {
    /// The bracelet's serial number.
    public var device: String
    /// The file kind, as the caller names it (`hrm`, `activity`, `hrv`, `sleep`, ...).
    public var fileKind: String
    /// The file size the bracelet announced when the transfer began (bytes).
    public var sealedSize: Int64
    /// Bytes committed to the database together with the data they carried.
    public var committed: Int64
    /// The file's CRC as announced by the bracelet, when known.
    public var crc: Int64?
    /// Where the transfer stands.
    public var state: TransferState
    /// When the row last changed, Unix milliseconds.
    public var updatedAt: Int64

    /// Where to resume the download: the first byte not yet committed.
    public var resumeOffset: Int64 { committed }
}

/// What committing one chunk did.
public struct TransferChunkReport: Sendable, Equatable {
    /// The transfer after the chunk.
    public var progress: TransferProgress
    /// Slots the chunk carried: new vs already present.
    public var slots: InsertReport
    /// Beats the chunk carried: new vs already present.
    public var beats: InsertReport
}

extension Store {
    /// Starts, or resumes, the transfer of `fileKind` from `device` whose sealed size is `sealedSize`.
    ///
    /// - A first transfer, or one after an erase, starts at byte 0.
    /// - An unfinished transfer resumes at its committed offset when the file can only have grown
    ///   (`sealedSize >= committed`, and an equal size has an equal CRC); otherwise the file changed
    ///   under us and the transfer restarts at 0 (slots already stored are simply found again).
    public func beginTransfer(device: String, model: DeviceModel?, fileKind: String, sealedSize: Int64, crc: Int64?) throws -> TransferProgress {
        guard sealedSize >= 0 else {
            throw StoreError.invalidInput("sealed size \(sealedSize) of \(fileKind) from \(device) is negative; ask the bracelet for the file size again.")
        }
        return try write { db in
            let deviceID = try upsertDevice(db, serial: device, model: model)
            let previous = try transferProgress(db, deviceID: deviceID, device: device, fileKind: fileKind)
            var committed: Int64 = 0
            if let previous, previous.state != .erased, sealedSize >= previous.committed {
                let sameFile = previous.sealedSize != sealedSize || previous.crc == nil || crc == nil || previous.crc == crc
                if sameFile { committed = previous.committed }
            }
            let state: TransferState = committed == sealedSize ? .committed : .receiving
            let statement = try db.prepare("""
                INSERT INTO transfers (device_id, file_kind, sealed_size, committed, crc, state, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT(device_id, file_kind) DO UPDATE SET sealed_size = excluded.sealed_size,
                    committed = excluded.committed, crc = excluded.crc, state = excluded.state,
                    updated_at = excluded.updated_at
                """)
            statement.bind(deviceID, at: 1)
            statement.bind(fileKind, at: 2)
            statement.bind(sealedSize, at: 3)
            statement.bind(committed, at: 4)
            statement.bind(crc, at: 5)
            statement.bind(state.rawValue, at: 6)
            statement.bind(now(), at: 7)
            try statement.run()
            return TransferProgress(device: device, fileKind: fileKind, sealedSize: sealedSize, committed: committed,
                                    crc: crc, state: state, updatedAt: now())
        }
    }

    /// Commits bytes `[offset, offset + byteCount)` of a transfer together with the slots and beats
    /// they carried, in ONE transaction: after a crash either both the data and the progress are
    /// stored, or neither is.
    ///
    /// - Throws: ``StoreError/transferOutOfOrder(device:fileKind:expectedOffset:gotOffset:)`` when
    ///   `offset` is not the committed offset, ``StoreError/transferOverrun(device:fileKind:sealedSize:endOffset:)``
    ///   past the sealed size, ``StoreError/noSuchTransfer(device:fileKind:)`` without ``beginTransfer(device:model:fileKind:sealedSize:crc:)``.
    public func commitTransferChunk(device: String, fileKind: String, offset: Int64, byteCount: Int64,
                                    slots: [Slot], beats: [Beat]) throws -> TransferChunkReport {
        guard byteCount >= 0 else {
            throw StoreError.invalidInput("chunk of \(fileKind) from \(device) at byte \(offset) has a negative length \(byteCount).")
        }
        return try write { db in
            guard let deviceID = try deviceID(db, serial: device),
                  var progress = try transferProgress(db, deviceID: deviceID, device: device, fileKind: fileKind),
                  progress.state != .erased
            else { throw StoreError.noSuchTransfer(device: device, fileKind: fileKind) }
            guard offset == progress.committed else {
                throw StoreError.transferOutOfOrder(device: device, fileKind: fileKind, expectedOffset: progress.committed, gotOffset: offset)
            }
            let end = offset + byteCount
            guard end <= progress.sealedSize else {
                throw StoreError.transferOverrun(device: device, fileKind: fileKind, sealedSize: progress.sealedSize, endOffset: end)
            }
            let slotReport = try insertSlots(db, slots, deviceID: deviceID)
            let beatReport = try insertBeats(db, beats, deviceID: deviceID)
            progress.committed = end
            progress.state = end == progress.sealedSize ? .committed : .receiving
            progress.updatedAt = now()
            let statement = try db.prepare("""
                UPDATE transfers SET committed = ?3, state = ?4, updated_at = ?5 WHERE device_id = ?1 AND file_kind = ?2
                """)
            statement.bind(deviceID, at: 1)
            statement.bind(fileKind, at: 2)
            statement.bind(progress.committed, at: 3)
            statement.bind(progress.state.rawValue, at: 4)
            statement.bind(progress.updatedAt, at: 5)
            try statement.run()
            return TransferChunkReport(progress: progress, slots: slotReport, beats: beatReport)
        }
    }

    /// Records that the bracelet erased the file. Allowed only when every byte is committed: call it
    /// BEFORE sending the erase command, and send the command only when this succeeds.
    ///
    /// - Throws: ``StoreError/eraseBeforeCommit(device:fileKind:committed:sealedSize:)`` while bytes are
    ///   missing.
    public func markErased(device: String, fileKind: String) throws -> TransferProgress {
        try write { db in
            guard let deviceID = try deviceID(db, serial: device),
                  var progress = try transferProgress(db, deviceID: deviceID, device: device, fileKind: fileKind)
            else { throw StoreError.noSuchTransfer(device: device, fileKind: fileKind) }
            if progress.state == .erased { return progress }
            guard progress.committed == progress.sealedSize else {
                throw StoreError.eraseBeforeCommit(device: device, fileKind: fileKind, committed: progress.committed, sealedSize: progress.sealedSize)
            }
            progress.state = .erased
            progress.updatedAt = now()
            let statement = try db.prepare("UPDATE transfers SET state = 'erased', updated_at = ?3 WHERE device_id = ?1 AND file_kind = ?2")
            statement.bind(deviceID, at: 1)
            statement.bind(fileKind, at: 2)
            statement.bind(progress.updatedAt, at: 3)
            try statement.run()
            return progress
        }
    }

    /// The progress of the transfer of `fileKind` from `device`, `nil` when none was begun.
    public func transferProgress(device: String, fileKind: String) throws -> TransferProgress? {
        try locked { db in
            guard let deviceID = try deviceID(db, serial: device) else { return nil }
            return try transferProgress(db, deviceID: deviceID, device: device, fileKind: fileKind)
        }
    }

    func transferProgress(_ db: Database, deviceID: Int64, device: String, fileKind: String) throws -> TransferProgress? {
        let statement = try db.prepare("""
            SELECT sealed_size, committed, crc, state, updated_at FROM transfers WHERE device_id = ?1 AND file_kind = ?2
            """)
        statement.bind(deviceID, at: 1)
        statement.bind(fileKind, at: 2)
        guard try statement.step() else { return nil }
        return TransferProgress(device: device, fileKind: fileKind,
                                sealedSize: statement.int64(at: 0) ?? 0, committed: statement.int64(at: 1) ?? 0,
                                crc: statement.int64(at: 2),
                                state: statement.text(at: 3).flatMap(TransferState.init(rawValue:)) ?? .receiving,
                                updatedAt: statement.int64(at: 4) ?? 0)
    }
}
