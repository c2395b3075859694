import BraceletDecoder
import BraceletProtocol
import BraceletStore
import BraceletTransport
import Foundation

/// Saves each verified file from a live session into the SQLite store: its slots or beats and the
/// transfer's progress in one transaction, so the session may erase the file on the bracelet only
/// after the data is durable. A file delivered twice (link lost between commit and erase) changes
/// nothing the second time.
final class StoreSink: TransferSink, @unchecked Sendable {
    let store: Store
    let timeZone: TimeZone
    private let lock = NSLock()
    private var touched: [String: Set<String>] = [:]

    init(store: Store, timeZone: TimeZone) {
        self.store = store
        self.timeZone = timeZone
    }

    /// Local dates that received new data, per device serial.
    var touchedDates: [String: Set<String>] { lock.withLock { touched } }

    func commit(_ file: TransferredFile) throws {
        guard file.kind == .metrics || file.kind == .beats else { return }  // logs are not stored
        var slots: [Slot] = []
        var beats: [Beat] = []
        var crc: Int64?
        try file.bytes.withUnsafeBytes { raw in
            if file.kind == .metrics {
                let summary = try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 1024)) { c in
                    for i in 0..<c.count { slots.append(c.slot(at: i)) }
                }
                guard summary.faults.isEmpty else { throw CLIError("metrics file of \(file.serial) is damaged: \(summary.faults)") }
            } else {
                let (decoded, summary) = try FileDecoder.decodeBeats(raw)
                guard summary.faults.isEmpty else { throw CLIError("beats file of \(file.serial) is damaged: \(summary.faults)") }
                beats = decoded
            }
            crc = Int64(raw.loadLittleEndian(at: raw.count - 4, as: UInt32.self))
        }
        let size = Int64(file.bytes.count)
        let progress = try store.beginTransfer(device: file.serial, model: file.model, fileKind: file.kind.description, sealedSize: size, crc: crc)
        guard progress.committed < size else { return }  // already committed: a repeat delivery
        let report = try store.commitTransferChunk(device: file.serial, fileKind: file.kind.description, offset: progress.committed,
                                                   byteCount: size - progress.committed, slots: slots, beats: beats)
        let dates = report.slots.touchedLocalDates(in: timeZone) + report.beats.touchedLocalDates(in: timeZone)
        lock.withLock { touched[file.serial, default: []].formUnion(dates) }
    }

    /// Records that the bracelet erased the last committed file of `kind`.
    func erased(kind: FileKind, serial: String) {
        do { _ = try store.markErased(device: serial, fileKind: kind.description) } catch {
            printError("warning: could not record the erase of \(kind) in the database: \(error)")
        }
    }
}
