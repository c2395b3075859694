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

    /// Decodes a file a live session received and verified. Throws ``IngestError/damagedFile(kind:serial:detail:)``
    /// when the file does not decode cleanly (the session must not erase it then).
    ///
    /// - Returns: `nil` for kinds the store does not keep (firmware logs).
    public init?(transferred file: TransferredFile) throws(IngestError) {
        guard file.kind == .metrics || file.kind == .beats else { return nil }
        var slots: [Slot] = []
        var beats: [Beat] = []
        let bytes = file.bytes
        guard bytes.count >= 4 else { throw .damagedFile(kind: file.kind.description, serial: file.serial, detail: "only \(bytes.count) bytes") }
        do {
            try bytes.withUnsafeBytes { raw in
                let faults: [FileFormatError]
                if file.kind == .metrics {
                    slots.reserveCapacity(raw.count / 24)
                    faults = try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 1024)) { columns in
                        for i in 0..<columns.count { slots.append(columns.slot(at: i)) }
                    }.faults
                } else {
                    let decoded = try FileDecoder.decodeBeats(raw)
                    beats = decoded.beats
                    faults = decoded.summary.faults
                }
                guard faults.isEmpty else { throw IngestError.damagedFile(kind: file.kind.description, serial: file.serial, detail: "\(faults)") }
            }
        } catch let error as IngestError {
            throw error
        } catch {
            throw .damagedFile(kind: file.kind.description, serial: file.serial, detail: "\(error)")
        }
        let crc = bytes.withUnsafeBytes { Int64($0.loadLittleEndian(at: bytes.count - 4, as: UInt32.self)) }
        self.init(serial: file.serial, model: file.model, slots: slots, beats: beats,
                  transfer: TransferIdentity(fileKind: file.kind.description, sealedSize: Int64(bytes.count), crc: crc))
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
