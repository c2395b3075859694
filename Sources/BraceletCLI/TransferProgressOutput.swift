import BraceletDecoder
import BraceletProtocol
import BraceletTransport
import Foundation

/// Shows `listen`'s session events, and with `--format json` its progress through the bracelet's
/// whole backlog (every sealed file of every kind) as JSON Lines.
///
/// - human: lines on standard error, `listen: ` first: each session event as it happens (the
///   progress line with rate and time left is the command's ``ProgressReporter``'s);
/// - json: JSON Lines on standard output (next to the `"kind":"hr"` live samples), one object per
///   line with a `"kind"` naming it: `backlog`, `file`, `progress`, `committed`, `erased`,
///   `link_lost`, `size_mismatch`, `event` (anything else, with its `message`), written by the
///   canonical JSON writer (keys sorted). Unknown numbers are `null`, never 0.
/// - quiet: nothing.
final class TransferProgressOutput {
    /// Where and how progress goes.
    enum Style { case human, json, quiet }

    private let style: Style
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    private var progress = BacklogProgress()
    private var lastLine: Double = -.infinity
    /// Seconds between two throttled progress lines.
    private let interval: Double

    /// A renderer in `style`, writing a progress line at most every `interval` seconds.
    init(style: Style, interval: Double = 1) {
        self.style = style
        self.interval = interval
        origin = clock.now
    }

    /// Shows one session event (live heart-rate samples are the caller's).
    func handle(_ event: SessionEvent) {
        guard style != .quiet else { return }
        let now = origin.duration(to: clock.now).seconds
        progress.apply(event, at: now)
        var milestone = false
        switch event {
        case .transferProgress:
            if style == .human { Log.debug("listen: \(event)") }
        case .committed:
            milestone = true
            emit(event: event)
        default:
            emit(event: event)
        }
        let isTransferEvent: Bool
        switch event {
        case .transferProgress, .committed, .transferStarted: isTransferEvent = true
        default: isTransferEvent = false
        }
        if style == .json, isTransferEvent && (milestone || now - lastLine >= interval) {
            lastLine = now
            emitProgress()
        }
    }

    private func emit(event: SessionEvent) {
        switch style {
        case .quiet: return
        case .human: Log.info("listen: \(event)")
        case .json: writeLine(Self.json(event))
        }
    }

    private func emitProgress() {
        writeLine(Self.jsonProgress(progress))
    }

    private func writeLine(_ line: String) {
        // Unbuffered, like the live samples, so a pipe sees each line as it happens.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    // MARK: - JSON

    private typealias Value = CanonicalJSON.Node.Value

    private static func string(_ s: String) -> Value { .string(s) }

    private static func number(_ n: Int?) -> Value { n.map { .int(Int64($0)) } ?? .null }

    /// One line's object, written by the canonical writer (keys in canonical order).
    private static func object(_ fields: [(String, Value)]) -> String {
        String(decoding: CanonicalJSON.object(fields), as: UTF8.self)
    }

    static func json(_ event: SessionEvent) -> String {
        switch event {
        case let .backlog(kind, files, bytes):
            object([("kind", string("backlog")), ("file_kind", string("\(kind)")), ("files", number(files)), ("bytes", number(bytes))])
        case let .transferStarted(kind, size, resumeAt):
            object([("kind", string("file")), ("file_kind", string("\(kind)")), ("size", number(size)), ("resume_at", number(resumeAt))])
        case let .committed(kind, size):
            object([("kind", string("committed")), ("file_kind", string("\(kind)")), ("size", number(size))])
        case let .erased(kind, size):
            object([("kind", string("erased")), ("file_kind", string("\(kind)")), ("size", number(size))])
        case .linkLost(let why):
            object([("kind", string("link_lost")), ("reason", string(why))])
        case .sizeMismatch(let m):
            object([("kind", string("size_mismatch")), ("file_kind", string("\(m.kind)")), ("announced", number(m.announced)),
                    ("header_bytes", number(m.headerLength)), ("wrapped", .bool(m.isWrapped)), ("message", string(m.description))])
        default:
            object([("kind", string("event")), ("message", string(event.description))])
        }
    }

    static func jsonProgress(_ p: BacklogProgress) -> String {
        object([
            ("kind", string("progress")), ("file_kind", p.current.map { string("\($0.kind)") } ?? .null),
            ("file_received", number(p.current?.received)), ("file_size", number(p.current?.size)),
            ("files_done", number(p.filesDone)), ("files_total", number(p.filesTotal)),
            ("bytes_done", number(p.bytesDone)), ("bytes_total", number(p.bytesTotal)),
            ("bytes_per_second", number(p.rate.map { Int($0) })), ("seconds_left", number(p.secondsLeft.map { Int($0.rounded(.up)) })),
        ])
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        let (s, attos) = components
        return Double(s) + Double(attos) / 1e18
    }
}
