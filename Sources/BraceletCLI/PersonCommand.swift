import ArgumentParser
import BraceletDecoder
import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// `bracelet person`: the participant record of each device (who wears it, with which settings).
struct PersonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "person",
        abstract: "Show or change who wears a bracelet and the settings their days are computed with.",
        discussion: """
            Every command that reads or writes a device's days takes its settings from this record \
            when a flag is left out. A change recomputes the stored days whose settings it alters and \
            queues new outbox versions only for days whose content changed.
            """,
        subcommands: [PersonSetCommand.self, PersonShowCommand.self]
    )
}

/// `bracelet person set`: change a device's participant record.
struct PersonSetCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set the user id or settings of the person wearing a bracelet, and recompute the days that change.",
        discussion: """
            Without --from a setting holds for every day (its earlier values are replaced, and the \
            command lists them); with --from DATE it holds from that local date on, and older days \
            keep what they were computed with (a move to another time zone, a birthday). --age ends \
            a measured maximum heart rate from the same date. The user id is sent with every later \
            delivery and re-send; --no-user removes it.

            Examples:
              bracelet person set --db bracelet.db --device SN12345 \\
                --user P-0042 --tz Europe/Amsterdam --age 35
              bracelet person set --db bracelet.db --device SN1 --age 36 --from 2026-09-14
              bracelet person set --db bracelet.db --device SN1 \\
                --tz America/New_York --from 2026-07-01
              bracelet person set --db bracelet.db --device SN12345 --no-user
            """
    )

    @OptionGroup var log: LogOptions

    @Option(help: "The bracelet database (created with mode 0600 when missing).")
    var db: String

    @Option(help: "The bracelet's serial number.")
    var device: String

    @Option(help: "Study participant id sent with every delivery (1-64 of A-Z a-z 0-9 . _ - : @; no personal data such as an e-mail address).")
    var user: String?

    @Flag(name: .customLong("no-user"), help: "Remove the user id: later deliveries and re-sends carry none.")
    var noUser = false

    @OptionGroup var userPolicy: UserIDPolicyOptions

    /// The settings to set (the same flags as every summary command's).
    @OptionGroup var person: PersonOptions

    @Option(help: ArgumentHelp("First local date the new settings hold for (default: every day).", valueName: "YYYY-MM-DD"))
    var from: String?

    var settings: ParticipantProfile { person.given }

    func validate() throws {
        if user != nil && noUser { throw ValidationError("--user and --no-user exclude each other.") }
        try userPolicy.check(user, option: "--user")
        if person.age != nil && person.hrMax != nil { throw ValidationError("give --age or --hr-max, not both: a measured maximum wins over the age.") }
        if settings.isEmpty && user == nil && !noUser {
            throw ValidationError("say what to set: --user, --no-user, --tz, --age, --hr-max, --height, --step-goal, ...")
        }
        if let from, !LocalDates.isValid(from) { throw ValidationError("--from \(from) is not a date written YYYY-MM-DD") }
        if from != nil && settings.isEmpty { throw ValidationError("--from dates settings; the user id holds for every delivery from now on.") }
    }

    func run() throws {
        let store = try openStore(db, mustExist: false)
        let change = ParticipantChange(settings: settings, user: user.map { .set($0) } ?? (noUser ? .clear : .keep), from: from)
        let report = try participantCall(db) { try Participants.set(change, device: device, store: store) }
        for line in describe(report, device: device) { print(line) }
        if let warning = ParticipantRecomputer(record: report.after).missingZoneInputWarning(database: db),
           report.after.rows.contains(where: { $0.name == .timeZone }) {
            Log.info("note: \(warning)")
        }
    }
}

/// `bracelet person show`: print the participant records.
struct PersonShowCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the participant record of a bracelet (or of every one): user id and each setting with the dates it holds from."
    )

    @OptionGroup var log: LogOptions

    @Option(help: "The bracelet database.")
    var db: String

    @Option(help: "Only this bracelet (default: every device).")
    var device: String?

    @Flag(help: "Print JSON (one object per device, in a JSON array).")
    var json = false

    func run() throws {
        let store = try openStore(db, mustExist: true)
        let devices = try device.map { [try chooseDevice(store, path: db, requested: $0)] } ?? store.devices().map(\.serial)
        if devices.isEmpty {
            Log.info("note: \(db) holds no participant record yet: `bracelet person set --db \(db) --device SERIAL --user ID --tz ZONE` "
                     + "makes one, and so does storing a bracelet's data (\(DatabaseFiller.deviceData.advice(db)))")
        }
        let records = try participantCall(db) { try devices.map { try ParticipantRecord.load(device: $0, from: store) } }
        if json {
            var out = Array("[".utf8)
            for (index, record) in records.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += try record.json()
            }
            out += Array("]".utf8)
            print(String(decoding: CanonicalJSON.prettyPrinted(out), as: UTF8.self))
        } else {
            for record in records { print(record.lines.joined(separator: "\n")) }
        }
    }
}
