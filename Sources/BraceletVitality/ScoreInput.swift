import BraceletDecoder
import BraceletSummaries
import Foundation

/// What scoring needs of a day summary: the summary without its per-slot arrays (a few kB instead
/// of about 0.6 MB) and the movement minutes those slots gave. The gateway makes it when it stores
/// the summary (it holds the decoded value then) and the outbox carries it beside the payload, so
/// neither a delivery nor a fleet `score` has to decode the whole document.
public struct DayScoreInput: Codable, Sendable, Equatable {
    /// The day summary with every `slots` array emptied.
    public var summary: DailySummary
    /// Minutes in movement, counted from the slots the gateway summarised (`nil`: no slot had data).
    public var movementMinutes: Double?

    enum CodingKeys: String, CodingKey {
        case summary
        case movementMinutes = "movement_minutes"
    }

    /// The score input of a full day summary.
    public init(summary full: DailySummary) {
        movementMinutes = BraceletDay(summary: full, sleepSessions: [])?.movementMinutes
        var lean = full
        lean.bpm.slots = []
        lean.breath.slots = []
        lean.steps.slots = []
        lean.activity.slots = []
        lean.bodyTemp.slots = []
        lean.coreBodyTemperature.slots = []
        lean.spo2.slots = []
        lean.emography.slots = []
        summary = lean
    }

    /// The score input of an outbox envelope's payload, `nil` when its summary is not a day summary
    /// this build can read.
    public init?(payload: Data) {
        guard let envelope = try? JSONDecoder().decode(ScoreInputEnvelope<DailySummary>.self, from: payload) else { return nil }
        self.init(summary: envelope.summary)
    }

    /// Canonical JSON text of the input.
    public func text() throws -> String {
        String(decoding: try CanonicalJSON.bytes(of: self, what: "a day score input"), as: UTF8.self)
    }

    /// The vitality inputs of the day with the sleep sessions of its date (their slots are not read).
    public func day(sleepSessions: [SleepSession]) -> BraceletDay? {
        var day = BraceletDay(summary: summary, sleepSessions: sleepSessions)
        day?.movementMinutes = movementMinutes
        return day
    }

    /// The vitality metrics of each of `days` (in their order), each built with the sessions of
    /// `sleepSessions` that belong to its local date, the way the gateway builds its own: what
    /// ``ScoreReport/make(days:age:builder:source:)`` scores for a subject of the fleet database.
    /// A day whose date cannot be read is left out.
    public static func vitalityDays(_ days: [DayScoreInput], sleepSessions: [SleepSession], age: Int) -> [DatedVitalityMetrics] {
        let sessions = Dictionary(grouping: sleepSessions, by: \.recordDate)
        return days.compactMap { input in
            guard let date = LocalDate(iso: input.summary.date),
                  let day = input.day(sleepSessions: sessions[input.summary.date] ?? []) else { return nil }
            let (metrics, missing) = vitalityMetrics(for: day, age: age)
            return DatedVitalityMetrics(date: date, metrics: metrics, missing: missing, coverage: input.summary.coverage)
        }
    }
}

/// What scoring needs of a sleep session: the session without its stage samples (about 0.6 kB
/// instead of 13-23 kB), made and carried like ``DayScoreInput``.
public enum SleepScoreInput {
    /// `session` with its stage samples left out.
    public static func lean(_ session: SleepSession) -> SleepSession {
        var lean = session
        lean.slots = []
        return lean
    }

    /// Canonical JSON text of the input of `session`.
    public static func text(of session: SleepSession) throws -> String {
        String(decoding: try CanonicalJSON.bytes(of: lean(session), what: "a sleep score input"), as: UTF8.self)
    }

    /// The input of an outbox envelope's payload, `nil` when it is not a sleep session this build reads.
    public static func text(payload: Data) -> String? {
        guard let envelope = try? JSONDecoder().decode(ScoreInputEnvelope<SleepSession>.self, from: payload) else { return nil }
        return try? text(of: envelope.summary)
    }
}

/// The part of an outbox envelope a score input is made from.
private struct ScoreInputEnvelope<T: Decodable>: Decodable {
    let summary: T
}
