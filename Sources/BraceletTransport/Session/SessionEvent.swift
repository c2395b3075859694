import BraceletProtocol

/// What a ``BraceletSession`` is doing, for progress output, logs and tests.
public enum SessionEvent: Sendable, Equatable, CustomStringConvertible {
    /// Connected (attempt number from 1).
    case connected(attempt: Int)
    /// Device Information read.
    case device(model: DeviceModel, serial: String, firmware: String?)
    /// The bracelet's clock and status as read before set time (only with
    /// ``SessionConfiguration/readDeviceState``).
    case deviceState(DeviceState)
    /// The advertised or expected model disagreed with Device Information (which wins).
    case modelMismatch(expected: DeviceModel, reported: DeviceModel)
    /// The bracelet holds `files` sealed files of `kind` waiting, `bytes` in all (rounded up to whole
    /// KiB by the bracelet), counted at this connection (the queue status command).
    case backlog(kind: FileKind, files: Int, bytes: Int)
    /// A file of `size` bytes is being transferred, resuming at `resumeAt`.
    case transferStarted(kind: FileKind, size: Int, resumeAt: Int)
    /// `received` of the `size` bytes of the file being transferred are held (after each read).
    case transferProgress(kind: FileKind, received: Int, size: Int)
    /// The announced size cannot belong to the file (wrapped or corrupted size): the kind is skipped
    /// for this session, nothing of it erased; the session ends with this error.
    case sizeMismatch(AnnouncedSizeMismatch)
    /// Data packets lost (sequence/offset gap or bad CRC) in one read; they are re-requested.
    case packetsLost(kind: FileKind, count: Int)
    /// Repeated packets ignored in one read.
    case packetsRepeated(kind: FileKind, count: Int)
    /// A packet carried bytes past the announced file size (ignored).
    case fileLargerThanAnnounced(kind: FileKind, size: Int, offset: Int)
    /// A received file failed verification; it is read again and never erased.
    case verificationFailed(kind: FileKind, reason: String)
    /// A file was committed to the sink.
    case committed(kind: FileKind, size: Int)
    /// A committed file was erased on the bracelet.
    case erased(kind: FileKind, size: Int)
    /// The bracelet refused an erase; nothing was erased and the data stays committed.
    case eraseRefused(kind: FileKind, reason: String)
    /// The device is a standard health sensor (a SIG health service, no bracelet service): what it
    /// said about itself. Only its measurements follow; nothing is transferred or erased.
    case standardSensor(StandardSensorInfo)
    /// A measurement a standard sensor sent, with the time it arrived.
    case sensorSample(SensorSample)
    /// The device refused a request with `after` (insufficient encryption or authentication) and
    /// the link was raised to `link`; the request was sent again.
    case securityRaised(after: ATTErrorCode, link: LinkSecurity)
    /// A live Heart Rate Measurement of a bracelet.
    case heartRate(HeartRateMeasurement)
    /// A notification for a handle discovery did not find (ignored).
    case unknownHandle(UInt16)
    /// Something odd at the ATT level (malformed PDU, oversized frame, ...), survived.
    case diagnostic(String)
    /// The link dropped or timed out; the session will reconnect.
    case linkLost(String)
    /// Waiting before the next connection attempt.
    case reconnecting(afterMilliseconds: Int)

    /// One line for a log.
    public var description: String {
        switch self {
        case .connected(let n): "connected (attempt \(n))"
        case let .device(model, serial, firmware): "bracelet \(model) serial \(serial) firmware \(firmware ?? "?")"
        case .deviceState(let state): "\(state)"
        case let .modelMismatch(expected, reported): "expected a \(expected) but Device Information says \(reported); using \(reported)"
        case let .backlog(kind, files, bytes): "\(kind): \(files) sealed file(s) waiting, about \(bytes) bytes"
        case let .transferProgress(kind, received, size): "\(kind): \(received) of \(size) bytes"
        case .sizeMismatch(let mismatch): "\(mismatch)"
        case let .transferStarted(kind, size, resumeAt):
            resumeAt > 0 ? "\(kind): \(size) bytes, resuming at byte \(resumeAt)" : "\(kind): \(size) bytes"
        case let .packetsLost(kind, n): "\(kind): \(n) packet(s) lost, re-requesting"
        case let .packetsRepeated(kind, n): "\(kind): \(n) repeated packet(s) ignored"
        case let .fileLargerThanAnnounced(kind, size, offset):
            "\(kind): bracelet sent data at byte \(offset), past the announced size \(size); ignored"
        case let .verificationFailed(kind, reason): "\(kind): file failed verification (\(reason)); reading it again, not erasing"
        case let .committed(kind, size): "\(kind): \(size) bytes committed"
        case let .erased(kind, size): "\(kind): \(size) bytes erased on the bracelet"
        case let .eraseRefused(kind, reason): "\(kind): erase refused (\(reason)); data kept on the bracelet and in the store"
        case .standardSensor(let info): "standard sensor \(info)"
        case .sensorSample(let sample): "\(sample.measurement)"
        case let .securityRaised(refusal, link): "the device answered \(refusal): link raised to \(link); request sent again"
        case .heartRate(let m): "heart rate \(m.bpm) bpm"
        case .unknownHandle(let h): "ignored a notification for unknown handle \(h)"
        case .diagnostic(let text): text
        case .linkLost(let why): "link lost: \(why)"
        case .reconnecting(let ms): "reconnecting in \(ms) ms"
        }
    }
}
