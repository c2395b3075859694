import BraceletCapture
import BraceletTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the session's ATT traffic as a btsnoop capture (`listen --record`) while it happens: the
/// records go to the file a block at a time, so memory holds one block, not the session (a 400-day
/// backfill's capture is a few hundred MB).
///
/// The file is created before the session starts, so a path that cannot be written fails at once
/// instead of after the sync. A write that fails later (disk full) stops the recording, never the
/// sync; ``finish()`` reports it.
final class CaptureRecorder {
    private var writer = ATTCaptureWriter(datalink: .hciUART, maxACLPayload: 251, reservingCapacity: CaptureRecorder.blockBytes)
    private let path: String
    private var descriptor: Int32
    private var failure: BtsnoopError?

    /// Bytes gathered before they are written out.
    static let blockBytes = 1 << 18

    /// A recording into a new (or truncated) file at `path`.
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIError("cannot create the capture \(path) (\(String(cString: strerror(errno)))): check that its folder exists and is writable")
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private func micros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// A link came up, `encrypted` when the connector secured it while setting it up.
    func connect(encrypted: Bool) {
        writer.connect(unixMicros: micros())
        if encrypted { writer.encryptionOn(unixMicros: micros()) }
        writeIfFull()
    }

    /// The link was encrypted after it came up (raised on the device's demand).
    func encryptionOn() { writer.encryptionOn(unixMicros: micros()) }

    /// The link went down; what was noted of its security goes with it.
    func disconnect(clearing secured: SecuredLinks) {
        _ = secured.take()
        writer.disconnect(unixMicros: micros())
        writeIfFull()
    }

    /// One ATT PDU sent or received.
    func append(_ pdu: ATTPDU, direction: ATTDirection) {
        writer.append(pdu, direction: direction == .sent ? .sent : .received, unixMicros: micros())
        writeIfFull()
    }

    private func writeIfFull() {
        if writer.btsnoop.bytes.count >= Self.blockBytes { write() }
    }

    private func write() {
        let block = writer.drain()
        guard failure == nil, descriptor >= 0 else { return }
        do { try CaptureFile.append(block, toDescriptor: descriptor, path: path) } catch { failure = error }
    }

    /// Writes what is still held, makes the file durable and closes it.
    ///
    /// - Throws: ``CLIError`` naming the file when a write failed (the capture is cut short there).
    func finish() throws {
        write()
        if failure == nil, fsync(descriptor) != 0 { failure = .fileSystem(path: path, operation: "sync", errno: errno) }
        close(descriptor)
        descriptor = -1
        if let failure {
            throw CLIError("the capture \(path) is cut short: \(failure); free space and record again (the synced data is stored regardless)")
        }
    }
}
