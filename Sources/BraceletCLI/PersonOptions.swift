import ArgumentParser
import BraceletIngest
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// Options shared by the summary commands: who the person is and which time zone their days are
/// in. With a database, each one left out is taken from the device's participant record
/// (`bracelet person show`); one given is checked against it.
struct PersonOptions: ParsableArguments {
    @Option(help: "Time zone of the person's days: an IANA name (Europe/Amsterdam), UTC or an offset (+02:00). Default: the participant record's (a capture without a database: its recorded offset).",
            transform: parseTimeZoneOption)
    var tz: TimeZone?

    @Option(help: "Age in years (sets max HR = 208 - 0.7 x age, or 220 - age with --hrmax-formula 220).")
    var age: Int?

    @Option(name: .customLong("hr-max"), help: "Maximum heart rate, if measured (overrides --age for zones).")
    var hrMax: Int?

    @Option(name: .customLong("hrmax-formula"), help: "Formula for max HR from age: 208 (Tanaka, default) or 220.")
    var hrMaxFormula: HRMaxFormula?

    @Option(help: "Body height in cm, for step distance (default 170).")
    var height: Double?

    @Option(name: .customLong("step-goal"), help: "Daily step goal (default 10000).")
    var stepGoal: Int?

    @Option(name: .customLong("slot-seconds"), help: "Summary slot length in seconds (>= 60, default 60).")
    var slotSeconds: Int?

    @Option(name: .customLong("min-quality"), help: "Lowest quality (0-4) of heart rate, breath and SpO2 samples that count (default 2).")
    var minQuality: Int?

    /// The settings given on the command line.
    var given: ParticipantProfile {
        ParticipantProfile(timeZone: tz, age: age, hrMax: hrMax, hrMaxFormula: hrMaxFormula, heightCm: height, stepGoal: stepGoal,
                           slotSeconds: slotSeconds, minQuality: minQuality)
    }

    /// The summary configuration of input that has no participant record (a capture or CSV file
    /// summarised without a database), using `recordedOffsetSeconds` when no --tz was given.
    func configuration(recordedOffsetSeconds: Int?) throws -> SummaryConfiguration {
        var profile = given
        if profile.timeZone == nil {
            if let offset = recordedOffsetSeconds, let fixed = TimeZone(secondsFromGMT: offset) {
                profile.timeZone = fixed
                Log.info("note: no --tz given; using the offset the bracelet recorded (\(offset / 60) min). Pass --tz ZONE for correct days across daylight-saving changes.")
            } else {
                profile.timeZone = TimeZone(identifier: "UTC")
                Log.info("note: no --tz given; days run in UTC")
            }
        }
        if age == nil && hrMax == nil {
            Log.info("note: no --age or --hr-max given: heart-rate zones assume age \(SummaryConfiguration.defaultAge); pass your own for zones that mean something")
        }
        do { return try profile.configuration(device: "the input") } catch { throw CLIError("\(error)") }
    }

    /// For a command that only reads the database: the settings of `device` on `date` from its
    /// participant record, each flag given replacing its setting for this run (with a note on
    /// standard error when it disagrees with the record).
    func reading(_ store: Store, device: String, database: String, on date: String = "9999-12-31") throws -> ParticipantProfile {
        try participantCall(database) {
            let record = try ParticipantRecord.load(device: device, from: store)
            let (profile, overridden) = try Participants.reading(given, record: record, on: date)
            for override in overridden { Log.info("note: " + override.note(database: database, device: device)) }
            return profile
        }
    }
}

/// Runs a participant-record call, turning its errors into one line that says what to do.
func participantCall<T>(_ database: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as ParticipantError {
        throw CLIError(error.description(database: database))
    } catch let error as IngestError {
        throw CLIError("\(error)")
    } catch let error as StoreError {
        throw CLIError("\(database): \(error)")
    }
}

/// The lines that say what a change of a participant record did (for `person set` and for the
/// commands that create or complete a record).
func describe(_ change: ParticipantChangeReport, device: String) -> [String] {
    var lines: [String] = []
    let before = Dictionary(grouping: change.before.rows, by: \.name)
    let after = Dictionary(grouping: change.after.rows, by: \.name)
    for name in ParticipantSettingName.allCases where before[name] != after[name] {
        let values = (after[name] ?? []).map { ($0.value ?? "unknown") + ($0.fromDate == ParticipantSettingRow.always ? "" : " from \($0.fromDate)") }
        lines.append("\(device): \(name.rawValue) is now \(values.joined(separator: ", "))")
    }
    for row in change.replaced {
        lines.append("\(device): replaced \(row.name.rawValue) \(row.value ?? "unknown")"
                     + (row.fromDate == ParticipantSettingRow.always ? "" : " (from \(row.fromDate))"))
    }
    if change.before.user != change.after.user {
        lines.append("\(device): user is now \(change.after.user ?? "none")"
                     + (change.pendingEntriesWithUser.map { "; \($0) pending entries carry it, and every later delivery and re-send" } ?? ""))
    }
    if let recomputed = change.recomputed {
        let dates = recomputed.dates
        let span = dates.isEmpty ? "" : " (\(dates.first ?? "")..\(dates.last ?? ""))"
        lines.append("\(device): recomputed \(dates.count) days whose settings changed\(span); \(recomputed.changedSummaries) daily summaries "
                     + "and \(recomputed.changedSleepSessions) sleep sessions changed (new outbox versions), vitality metrics changed on "
                     + "\(recomputed.changedVitalityDays) days")
    } else if !change.before.hasNoSettings && before != after {
        lines.append("\(device): no stored day had to be recomputed")
    }
    return lines
}
