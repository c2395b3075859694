import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// What `score` reads of a day summary, stored beside the full payload when the gateway delivers it:
/// the summary without its per-slot arrays (a few kB instead of about 0.47 MB) and the movement
/// minutes those slots gave. Scoring a participant then reads and decodes kilobytes per day instead
/// of the whole document; `summarize --postgres` still reads the payload.
struct FleetDayScoreInput: Codable, Sendable {
    /// The day summary with every `slots` array emptied.
    var summary: DailySummary
    /// Minutes in movement, counted from the slots the gateway summarised (`nil`: no slot had data).
    var movementMinutes: Double?

    enum CodingKeys: String, CodingKey {
        case summary
        case movementMinutes = "movement_minutes"
    }

    /// The score input of a full day summary.
    init(summary full: DailySummary) {
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
    /// this build can read (the reader then falls back to the payload).
    init?(payload: Data) {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: payload) else { return nil }
        self.init(summary: envelope.summary)
    }

    /// Canonical JSON text of the input.
    func text() throws -> String {
        String(decoding: try CanonicalJSON.bytes(of: self, what: "a fleet score input"), as: UTF8.self)
    }

    /// The vitality inputs of the day with the sleep sessions of its date.
    func day(sleepSessions: [SleepSession]) -> BraceletDay? {
        var day = BraceletDay(summary: summary, sleepSessions: sleepSessions)
        day?.movementMinutes = movementMinutes
        return day
    }

    private struct Envelope: Decodable {
        let summary: DailySummary
    }
}

extension FleetReader {
    /// The vitality metrics of every delivered day of `subject`, oldest first, built from the
    /// delivered day summaries and sleep sessions the way the gateway builds its own (each day
    /// with the sessions of its local date and its coverage), for ``BraceletVitality/ScoreReport``.
    ///
    /// Movement minutes rest on the heart-rate zones the gateway cut with its `--age`/`--hr-max`;
    /// a gateway that had neither used the default age, and its days count zone minutes with it.
    public func vitalityDays(of subject: Subject, age: Int, fromDate: String = "0001-01-01",
                             toDate: String = "9999-12-31") throws -> [DatedVitalityMetrics] {
        let inputs = try scoreInputs(of: subject, fromDate: fromDate, toDate: toDate)
        let sessions = Dictionary(grouping: try sleepSessions(of: subject, fromDate: fromDate, toDate: toDate), by: \.recordDate)
        return inputs.compactMap { input in
            guard let date = LocalDate(iso: input.summary.date),
                  let day = input.day(sleepSessions: sessions[input.summary.date] ?? []) else { return nil }
            let (metrics, missing) = vitalityMetrics(for: day, age: age)
            return DatedVitalityMetrics(date: date, metrics: metrics, missing: missing, coverage: input.summary.coverage)
        }
    }
}
