import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import BraceletTransport

/// One bracelet file whose checks passed (header, length, CRC-32), decoded into what the store keeps:
/// the unit the ``IngestPipeline`` stores, whichever way the file arrived.
public struct VerifiedFile: Sendable {
    /// The bracelet's serial number.
    public var serial: String
    /// The bracelet's model, when known (a CSV export does not say).
    public var model: DeviceModel?
    /// The slots the file carried (metrics files).
    public var slots: [Slot]
    /// The beats the file carried (beats files).
    public var beats: [Beat]
    /// Which transfer this file completes, for a file that came over a link; `nil` for data from a
    /// capture or a CSV export, which record no transfer progress.
    public var transfer: TransferIdentity?

    /// A file with these contents.
    public init(serial: String, model: DeviceModel?, slots: [Slot] = [], beats: [Beat] = [], transfer: TransferIdentity? = nil) {
        self.serial = serial
        self.model = model
        self.slots = slots
        self.beats = beats
        self.transfer = transfer
    }

    /// A file a live session received and verified, checked (header, length, CRC) but not yet
    /// decoded: its rows are decoded a batch at a time while it is stored (``forEachBatch(slots:beats:_:)``),
    /// so its ``slots`` and ``beats`` stay empty. Throws ``IngestError/damagedFile(kind:serial:detail:)``
    /// when the file does not check out (the session must not erase it then).
    ///
    /// - Returns: `nil` for kinds the store does not keep (firmware logs).
    public init?(transferred file: TransferredFile) throws(IngestError) {
        guard file.kind == .metrics || file.kind == .beats else { return nil }
        let bytes = file.bytes
        guard bytes.count >= 4 else { throw .damagedFile(kind: file.kind.description, serial: file.serial, detail: "only \(bytes.count) bytes") }
        do {
            let sealed = try bytes.withUnsafeBytes { raw in try SealedFile(bytes: raw) }
            guard sealed.header.kind == file.kind else {
                throw IngestError.damagedFile(kind: file.kind.description, serial: file.serial, detail: "its header says \(sealed.header.kind)")
            }
            guard sealed.faults.isEmpty else {
                throw IngestError.damagedFile(kind: file.kind.description, serial: file.serial, detail: "\(sealed.faults)")
            }
        } catch let error as IngestError {
            throw error
        } catch {
            throw .damagedFile(kind: file.kind.description, serial: file.serial, detail: "\(error)")
        }
        let crc = bytes.withUnsafeBytes { Int64($0.loadLittleEndian(at: bytes.count - 4, as: UInt32.self)) }
        self.init(serial: file.serial, model: file.model,
                  transfer: TransferIdentity(fileKind: file.kind.description, sealedSize: Int64(bytes.count), crc: crc))
        sealed = SealedBytes(kind: file.kind, bytes: bytes)
    }

    /// The checked bytes of a transferred file.
    private struct SealedBytes: Sendable {
        var kind: FileKind
        var bytes: [UInt8]
    }

    /// The checked bytes of a transferred file, decoded only while it is stored: a 16 MiB beats file
    /// decodes to about 60 MB of beats, which held whole were most of a backfill's memory.
    private var sealed: SealedBytes?

    /// Hands over the file's slots and beats in batches of at most `slotLimit` slots or `beatLimit`
    /// beats, in file order, so the decoded rows of a transferred file never all sit in memory at
    /// once. A file given as rows (a capture, a CSV export) comes as one batch.
    public func forEachBatch(slots slotLimit: Int = 16_384, beats beatLimit: Int = 131_072,
                             _ body: (_ slots: [Slot], _ beats: [Beat]) throws -> Void) throws {
        guard let sealed else { return try body(slots, beats) }
        do {
            try sealed.bytes.withUnsafeBytes { raw in
                if sealed.kind == .metrics {
                    var batch: [Slot] = []
                    batch.reserveCapacity(slotLimit)
                    _ = try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 1024)) { columns in
                        for i in 0..<columns.count { batch.append(columns.slot(at: i)) }
                        if batch.count + 1024 > slotLimit {
                            try body(batch, [])
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    if !batch.isEmpty { try body(batch, []) }
                } else {
                    let inspected = try FileDecoder.inspectBeats(raw)
                    var batch: [Beat] = []
                    batch.reserveCapacity(beatLimit)
                    try FileDecoder.decodeBeats(raw, inspected: inspected) { beats in
                        batch.append(contentsOf: beats)
                        if batch.count + FileDecoder.beatsPerBatch > beatLimit {
                            try body([], batch)
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    if !batch.isEmpty { try body([], batch) }
                }
            }
        } catch let error as FileFormatError {
            throw IngestError.damagedFile(kind: sealed.kind.description, serial: serial, detail: "\(error)")
        }
    }

    /// The files a capture's transfers recovered, metrics files first, then beats files.
    public static func files(of capture: ReplayedCapture) -> [VerifiedFile] {
        capture.metricsFiles.map { VerifiedFile(serial: $0.header.serial, model: $0.header.model, slots: $0.slots) }
            + capture.beatsFiles.map { VerifiedFile(serial: $0.header.serial, model: $0.header.model, beats: $0.beats) }
    }
}

/// The transfer a file completes: its kind, sealed size and CRC as the bracelet announced them.
public struct TransferIdentity: Sendable, Equatable {
    /// The file kind as the store names it (`metrics`, `beats`).
    public var fileKind: String
    /// The sealed file's size in bytes.
    public var sealedSize: Int64
    /// The file's trailing CRC-32.
    public var crc: Int64?

    /// An identity.
    public init(fileKind: String, sealedSize: Int64, crc: Int64?) {
        self.fileKind = fileKind
        self.sealedSize = sealedSize
        self.crc = crc
    }
}
