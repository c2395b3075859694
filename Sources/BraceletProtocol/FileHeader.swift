/// The 32-byte header that opens every sealed metrics or beats file.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic: `BRCM` (metrics) or `BRCR` (beats) |
/// | 4 | 1 | format version, 1 |
/// | 5 | 1 | model id: 1 = V1, 2 = V2 |
/// | 6 | 1 | record size in bytes: metrics 24 (V1) / 32 (V2), beats 8 |
/// | 7 | 1 | flags, 0 (reserved) |
/// | 8 | 8 | serial number, ASCII, NUL-padded |
/// | 16 | 4 | base time: Unix seconds (UTC) of the first slot |
/// | 20 | 2 | time-zone offset at recording, minutes east of UTC (signed) |
/// | 22 | 2 | slot interval in seconds, 1...3600 (metrics); 0 (beats) |
/// | 24 | 4 | record count |
/// | 28 | 4 | reserved, 0 |
///
/// Records follow the header; a CRC-32 of header and records (little-endian) ends the file.
public struct FileHeader: Sendable, Hashable {
    /// Header length in bytes.
    public static let length = 32
    /// Length of the CRC-32 that ends a file.
    public static let trailerLength = 4
    /// The format version this package reads and writes.
    public static let currentVersion: UInt8 = 1
    /// Magic of a metrics file, "BRCM".
    public static let metricsMagic: [UInt8] = Array("BRCM".utf8)
    /// Magic of a beats file, "BRCR".
    public static let beatsMagic: [UInt8] = Array("BRCR".utf8)

    /// Which file this header opens (`.metrics` or `.beats`).
    public var kind: FileKind
    /// Format version.
    public var version: UInt8
    /// The bracelet model that recorded the file.
    public var model: DeviceModel
    /// Bytes per record.
    public var recordSize: Int
    /// Serial number of the bracelet.
    public var serial: String
    /// Unix seconds (UTC) at which the first slot starts (metrics), or the time origin of beat times.
    public var baseTime: Int64
    /// Time-zone offset in force when the file was recorded, minutes east of UTC.
    public var timeZoneOffsetMinutes: Int
    /// Slot length in seconds (metrics; 0 in a beats file).
    public var intervalSeconds: Int
    /// Number of records in the file.
    public var recordCount: Int

    /// Creates a header with the record size the model and kind require.
    public init(kind: FileKind, model: DeviceModel, serial: String, baseTime: Int64,
                timeZoneOffsetMinutes: Int, intervalSeconds: Int, recordCount: Int) {
        self.kind = kind
        self.version = FileHeader.currentVersion
        self.model = model
        self.recordSize = kind == .beats ? BeatRecordLayout.size : MetricsRecordLayout.size(for: model)
        self.serial = serial
        self.baseTime = baseTime
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
        self.intervalSeconds = intervalSeconds
        self.recordCount = recordCount
    }

    /// Total file length: header, records and CRC.
    public var fileLength: Int { FileHeader.length + recordCount * recordSize + FileHeader.trailerLength }

    /// The 32 header bytes.
    public func encode() -> [UInt8] {
        var out = kind == .beats ? FileHeader.beatsMagic : FileHeader.metricsMagic
        out.append(version)
        out.append(model.rawValue)
        out.append(UInt8(truncatingIfNeeded: recordSize))
        out.append(0)
        var serialBytes = Array(serial.utf8.prefix(8))
        serialBytes += [UInt8](repeating: 0, count: 8 - serialBytes.count)
        out += serialBytes
        out.appendLittleEndian(UInt32(truncatingIfNeeded: baseTime))
        out.appendLittleEndian(Int16(truncatingIfNeeded: timeZoneOffsetMinutes))
        out.appendLittleEndian(UInt16(truncatingIfNeeded: intervalSeconds))
        out.appendLittleEndian(UInt32(truncatingIfNeeded: recordCount))
        out.appendLittleEndian(UInt32(0))
        return out
    }

    /// Decodes and validates a header at the start of `bytes`.
    ///
    /// Checks magic, version, model, record size against the model, and the interval range. The
    /// record count is not checked against the buffer here: ``SealedFile`` does that.
    public init(bytes: UnsafeRawBufferPointer) throws(FileFormatError) {
        guard bytes.count >= FileHeader.length else {
            throw .truncated(offset: bytes.count, needed: FileHeader.length, what: "file header")
        }
        let magic = Array(bytes[0..<4])
        if magic == FileHeader.metricsMagic {
            kind = .metrics
        } else if magic == FileHeader.beatsMagic {
            kind = .beats
        } else {
            throw .badMagic(found: magic)
        }
        version = bytes[4]
        guard version == FileHeader.currentVersion else { throw .unsupportedVersion(version) }
        guard let model = DeviceModel(rawValue: bytes[5]) else { throw .unknownModel(bytes[5]) }
        self.model = model
        recordSize = Int(bytes[6])
        let expectedSize = kind == .beats ? BeatRecordLayout.size : MetricsRecordLayout.size(for: model)
        guard recordSize == expectedSize else {
            throw .recordSizeMismatch(model: model, kind: kind, expected: expectedSize, found: recordSize)
        }
        let serialBytes = Array(bytes[8..<16]).prefix { $0 != 0 }
        serial = String(decoding: serialBytes, as: UTF8.self)
        baseTime = Int64(bytes.loadLittleEndian(at: 16, as: UInt32.self))
        timeZoneOffsetMinutes = Int(bytes.loadLittleEndian(at: 20, as: Int16.self))
        intervalSeconds = Int(bytes.loadLittleEndian(at: 22, as: UInt16.self))
        recordCount = Int(bytes.loadLittleEndian(at: 24, as: UInt32.self))
        if kind == .metrics, !(1...3600).contains(intervalSeconds) {
            throw .intervalOutOfRange(intervalSeconds)
        }
        guard (-14 * 60...14 * 60).contains(timeZoneOffsetMinutes) else {
            throw .timeZoneOffsetOutOfRange(timeZoneOffsetMinutes)
        }
    }
}

/// Why a sealed file cannot be read, with the byte offset where it went wrong and what to do.
public enum FileFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file ends before `what` is complete.
    case truncated(offset: Int, needed: Int, what: String)
    /// The first four bytes are neither `BRCM` nor `BRCR`.
    case badMagic(found: [UInt8])
    /// A format version this build does not read.
    case unsupportedVersion(UInt8)
    /// A model id this build does not know.
    case unknownModel(UInt8)
    /// The header's record size does not match the model.
    case recordSizeMismatch(model: DeviceModel, kind: FileKind, expected: Int, found: Int)
    /// The slot interval is outside 1...3600 s.
    case intervalOutOfRange(Int)
    /// The time-zone offset is outside ±14 h.
    case timeZoneOffsetOutOfRange(Int)
    /// The file's CRC-32 does not match its content.
    case crcMismatch(offset: Int, computed: UInt32, stored: UInt32)
    /// More bytes follow the CRC than the header announced.
    case trailingBytes(offset: Int, count: Int)

    public var description: String {
        switch self {
        case let .truncated(offset, needed, what):
            "file truncated at byte \(offset): \(what) needs \(needed) bytes; the records before it were delivered; re-read the file from the bracelet (it is erased only after a saved transfer)"
        case let .badMagic(found):
            "not a bracelet file: magic bytes are \(hexString(found)) at byte 0, expected 4252434d (BRCM) or 42524352 (BRCR); check that the input is a metrics or beats file"
        case let .unsupportedVersion(version):
            "file format version \(version) at byte 4 is not supported (this build reads version \(FileHeader.currentVersion)); update bracelet"
        case let .unknownModel(model):
            "unknown model id \(model) at byte 5 (1 = V1, 2 = V2); update bracelet"
        case let .recordSizeMismatch(model, kind, expected, found):
            "record size \(found) at byte 6 does not match a \(model) \(kind) file (expected \(expected)); the file is damaged or from another firmware"
        case let .intervalOutOfRange(interval):
            "slot interval \(interval) s at byte 22 is outside 1...3600; the file is damaged"
        case let .timeZoneOffsetOutOfRange(offset):
            "time-zone offset \(offset) min at byte 20 is outside ±840; the file is damaged"
        case let .crcMismatch(offset, computed, stored):
            "file CRC-32 at byte \(offset) is 0x\(hexString(stored)) but the content gives 0x\(hexString(computed)); the records are unverified: re-read the file from the bracelet"
        case let .trailingBytes(offset, count):
            "\(count) unexpected bytes after the file CRC at byte \(offset); they were ignored"
        }
    }
}

/// An announced file size that cannot belong to the file whose header arrived: the header's record
/// count gives another length. Either the size wrapped past the 24 bits a response carries (the
/// bracelet did not seal the file before 16 777 215 bytes) or the size or the header is corrupted.
/// Re-reading cannot fix either, so a client says which it is instead of calling the file truncated.
public struct AnnouncedSizeMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file kind.
    public var kind: FileKind
    /// The size the bracelet announced (file size response).
    public var announced: Int
    /// The header's record count.
    public var recordCount: Int
    /// The header's record size.
    public var recordSize: Int

    /// A mismatch between an announced size and a header's record count and size.
    public init(kind: FileKind, announced: Int, recordCount: Int, recordSize: Int) {
        self.kind = kind
        self.announced = announced
        self.recordCount = recordCount
        self.recordSize = recordSize
    }

    /// The length the header implies: header, records and CRC-32.
    public var headerLength: Int { FileHeader.length + recordCount * recordSize + FileHeader.trailerLength }

    /// Whether the announced size is the header's length cut to 24 bits (a file past the size cap).
    public var isWrapped: Bool {
        headerLength > Int(Response.maximumFileSize) && headerLength & Int(Response.maximumFileSize) == announced
    }

    public var description: String {
        let counted = "its header counts \(recordCount) records of \(recordSize) bytes, a \(headerLength)-byte file"
        if isWrapped {
            return "the bracelet announced the \(kind) file as \(announced) bytes but \(counted): the size wrapped past the "
                + "24-bit limit of 16777215 bytes because the firmware did not seal the file in time. The file was not read "
                + "further and nothing was erased; re-reading cannot fix it. Update the bracelet's firmware (or report this "
                + "firmware version); the other file kinds are still transferred."
        }
        return "the bracelet announced the \(kind) file as \(announced) bytes but \(counted): the announced size or the "
            + "header is corrupted. Nothing was erased and the file stays on the bracelet; sync again, and if it repeats "
            + "report the bracelet's firmware version."
    }
}

extension FileHeader {
    /// Checks an announced file size against this header's record count.
    ///
    /// - Throws: ``AnnouncedSizeMismatch`` when `size` is not ``fileLength``.
    public func check(announcedSize size: Int) throws(AnnouncedSizeMismatch) {
        guard size != fileLength else { return }
        throw AnnouncedSizeMismatch(kind: kind, announced: size, recordCount: recordCount, recordSize: recordSize)
    }
}

extension FileHeader {
    /// The most records of `recordSize` bytes one file of at most `limit` bytes holds, header and
    /// CRC-32 included (spec §6.3: a file is sealed before it grows past the 24-bit size limit).
    /// V1 metrics 699 049, V2 metrics 524 286, beats 2 097 147 at the spec's limit.
    public static func recordCapacity(recordSize: Int, limit: Int = Int(Response.maximumFileSize)) -> Int {
        max(0, (min(limit, Int(Response.maximumFileSize)) - length - trailerLength) / recordSize)
    }

    /// Beat times are u32 milliseconds after the base time: the last millisecond a beats file can hold.
    public static let maximumBeatOffsetMilliseconds = Int64(UInt32.max)
}
