import BraceletDecoder
import BraceletVitality

/// One device's result of `fleet score`: its vitality scores for the window, or why it has none.
///
/// A scored device carries the whole ``BraceletVitality/ScoreReport`` that `score --postgres
/// --device` makes of the same rows, and ``scoresJSON`` is byte for byte the `scores` object that
/// `score --format json` prints.
public struct FleetScore: Sendable {
    /// The bracelet serial.
    public let device: String
    /// Its study participant in `fleet_devices`, when assigned.
    public let user: String?
    /// The age scored for, `nil` when none was given for the device.
    public let age: Int?
    /// The report, `nil` when the device could not be scored.
    public let report: ScoreReport?
    /// Canonical JSON of the report's `scores` object, empty when not scored.
    public let scoresJSON: [UInt8]
    /// Why the device could not be scored (what `score --postgres --device` says), `nil` when scored.
    public let error: String?
    /// The window that lacked data when that is why it was not scored.
    public let failedWindow: (start: LocalDate, end: LocalDate)?

    /// A scored device.
    init(device: String, user: String?, age: Int, report: ScoreReport) throws {
        self.device = device
        self.user = user
        self.age = age
        self.report = report
        scoresJSON = try report.scoresJSON()
        error = nil
        failedWindow = nil
    }

    /// A device that could not be scored, with the window that lacked data when known.
    init(device: String, user: String?, age: Int?, error: String, window: (start: LocalDate, end: LocalDate)? = nil) {
        self.device = device
        self.user = user
        self.age = age
        report = nil
        scoresJSON = []
        self.error = error
        failedWindow = window
    }

    /// The window scored or tried: first and last day, `nil` when no day had data.
    public var window: (start: LocalDate, end: LocalDate)? {
        report.map { ($0.window.start, $0.window.end) } ?? failedWindow
    }

    /// The window's warnings (scored on fewer days than half the window).
    public var warnings: [String] { report?.window.warnings ?? [] }

    /// The score of `pillar` as printed (one decimal), `nil` when it had no metric or the device no score.
    public func score(of pillar: VitalityPillar) -> Double? {
        report?.scores.pillar(pillar)?.score.map { ScoreReport.round($0, 1) }
    }

    /// The total as printed (one decimal), `nil` when no pillar had data or the device no score.
    public var total: Double? { report?.scores.total.map { ScoreReport.round($0, 1) } }

    /// The device as one canonical JSON object: `device`, `user`, `age` (null when none was given), `window` {start, end, days}
    /// (null when no day had data), `scores` (the object of `score --format json`, null when not
    /// scored), `warnings` and `error` (null when scored).
    public func json(windowDays: Int) -> [UInt8] {
        var window = CanonicalJSON.Node.Value.null
        if let (start, end) = self.window {
            window = .canonical(CanonicalJSON.object([("start", .string(start.description)), ("end", .string(end.description)),
                                                      ("days", .int(Int64(windowDays)))]))
        }
        let warnings = CanonicalJSON.Node(.array)
        for warning in self.warnings { warnings.appendElement().value = .string(warning) }
        var warningBytes: [UInt8] = []
        CanonicalJSON.write(warnings, into: &warningBytes)
        return CanonicalJSON.object([
            ("device", .string(device)), ("user", user.map { .string($0) } ?? .null), ("age", age.map { .int(Int64($0)) } ?? .null), ("window", window),
            ("scores", scoresJSON.isEmpty ? .null : .canonical(scoresJSON)), ("warnings", .canonical(warningBytes)),
            ("error", error.map { .string($0) } ?? .null),
        ])
    }
}
