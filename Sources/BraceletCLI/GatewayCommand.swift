import ArgumentParser
import BraceletGateway
import BraceletStore
import BraceletSummaries
import BraceletTransport
import BraceletVitality
import Foundation

/// `bracelet gateway`: one always-on service that keeps the enrolled bracelets of this machine synced.
struct GatewayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Keep several bracelets synced, unattended: enrol them, run the service, see its status.",
        discussion: """
            Examples:
              bracelet gateway enroll --db bracelet.db --device AA:BB:CC:DD:EE:FF \\
                --user P-0042 --tz Europe/Amsterdam --age 54
              bracelet gateway run --db bracelet.db --jsonl summaries.jsonl \\
                --metrics 127.0.0.1:9464
              bracelet gateway status --db bracelet.db --json
              bracelet gateway remove --db bracelet.db --device AA:BB:CC:DD:EE:FF

            See docs/gateway.md for the systemd unit, what the service watches for and the \
            Prometheus alert rules (/usr/share/bracelet/prometheus/bracelet.rules.yml).
            """,
        subcommands: [GatewayEnrollCommand.self, GatewayRemoveCommand.self, GatewayRunCommand.self, GatewayStatusCommand.self]
    )
}

/// `--device ADDR` or `--via unix:PATH`: which bracelet.
struct GatewayEndpointOptions: ParsableArguments {
    @Option(help: "The bracelet's Bluetooth address (as bracelet scan shows it).")
    var device: String?

    @Option(help: "A simulated bracelet instead: unix:PATH (see bracelet simulate --serve).")
    var via: String?

    func validate() throws { _ = try endpoint() }

    /// The endpoint given, checked.
    func endpoint() throws -> GatewayEndpoint {
        switch (device, via) {
        case (nil, nil): throw ValidationError("say which bracelet: --device AA:BB:CC:DD:EE:FF or --via unix:PATH")
        case (.some, .some): throw ValidationError("--device and --via exclude each other: give one")
        case (let device?, nil):
            guard !device.hasPrefix("unix:") else { throw ValidationError("--device takes a Bluetooth address; use --via \(device)") }
            do { return try GatewayEndpoint(device) } catch { throw ValidationError("--device: \(error)") }
        case (nil, let via?):
            guard via.hasPrefix("unix:") else { throw ValidationError("--via must be unix:PATH, not '\(via)'") }
            do { return try GatewayEndpoint(via) } catch { throw ValidationError("--via: \(error)") }
        }
    }
}

/// `bracelet gateway enroll`.
struct GatewayEnrollCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enrol a bracelet (or update its settings); a running gateway picks it up within seconds.",
        discussion: """
            The person's settings (--user and the options of person set: --tz, --age or --hr-max, \
            --hrmax-formula, --height, --step-goal, --slot-seconds, --min-quality) go into the \
            bracelet's participant record (see bracelet person show), which every sync computes its \
            days with: at once when the bracelet was synced before, else as soon as its first sync \
            reads its serial; until then the enrolment keeps them. A setting not given is left as it \
            is, also one changed with person set since. Send SIGHUP to a running gateway to read the \
            change at once.

            Link security (--device): by default the gateway learns what the device needs from what it \
            answers (it pairs Just Works when a request is refused for insufficient encryption, with the \
            passkey for insufficient authentication), whether or not --address-type is given, and the \
            enrolment keeps the level its link was secured to. --security encrypted|authenticated \
            requires that level from the first sync. A kept level is never lowered: a device at the \
            address that does not give it is refused, with the operator event link_refused. \
            --security auto forgets a kept level, to learn it again.

            Example:
              bracelet gateway enroll --db bracelet.db --device C0:11:22:33:44:55 \\
                --user P-0042 --tz Europe/Amsterdam --age 54 --height 181 --step-goal 8000
            """
    )

    @OptionGroup var log: LogOptions

    @Option(help: "The bracelet database (created when missing).")
    var db: String

    @OptionGroup var which: GatewayEndpointOptions

    @Option(help: "Address type of --device (default: what its advertisement says).")
    var addressType: AddressTypeArgument?

    @Option(help: "Passkey the bracelet asks for when pairing (0-999999; default its manual's 999999).")
    var passkey: Int?

    @Option(help: "The link the device needs: auto learns it from the device's answers and keeps it (the default; given again, it forgets a level kept before); encrypted or authenticated require it from the first sync.")
    var security: EnrolSecurity?

    @Option(help: "Study participant id, sent with every delivery (no personal data such as an e-mail address).")
    var user: String?

    @OptionGroup var userPolicy: UserIDPolicyOptions

    /// The person's settings, as `bracelet person set` takes them.
    @OptionGroup(title: "The person's settings (into the bracelet's participant record)") var person: PersonOptions

    /// The enrolment the options describe.
    func enrolment(endpoint: String) -> GatewayEnrolment {
        GatewayEnrolment(endpoint: endpoint, addressType: addressType?.rawValue, user: user, passkey: passkey, settings: person.given.texts)
    }

    func validate() throws {
        if person.age != nil && person.hrMax != nil { throw ValidationError("give --age or --hr-max, not both: a measured maximum wins over the age.") }
        if let passkey, !(0...999_999).contains(passkey) { throw ValidationError("--passkey must be 0-999999 (six digits), not \(passkey)") }
        if which.via != nil && (addressType != nil || passkey != nil || security != nil) {
            throw ValidationError("--address-type, --passkey and --security apply to --device only (a unix: socket cannot be encrypted)")
        }
        // The settings are checked as the gateway will use them, before anything is stored.
        do { _ = try DeviceSettings(enrolment: enrolment(endpoint: "")) } catch {
            if case let GatewayError.invalidSettings(_, reason) = error { throw ValidationError(reason) }
            throw ValidationError("\(error)")
        }
        try userPolicy.check(user, option: "--user")
    }

    func run() throws {
        let endpoint = try which.endpoint()
        var enrolment = enrolment(endpoint: endpoint.description)
        let store = try openStore(db, mustExist: false)
        let isNew: Bool
        do {
            isNew = try store.enrol(enrolment)
            if let security { try store.setEnrolledLinkSecurity(endpoint: endpoint.description, security.required) }
        } catch { throw CLIError("cannot enrol \(endpoint) in \(db): \(error)") }
        enrolment = try store.enrolments().first { $0.endpoint == endpoint.description } ?? enrolment
        print("\(isNew ? "enrolled" : "updated") \(endpoint)")
        for line in Self.storedLines(enrolment) { print("  " + line) }
        guard let serial = enrolment.serial else {
            if !(try DeviceSettings(enrolment: enrolment)).isEmpty {
                print("its settings go into the participant record of the bracelet when its first sync reads its serial")
            }
            return
        }
        try participantCall(db) { try DeviceSettings(enrolment: enrolment).apply(serial: serial, endpoint: endpoint.description, store: store) }
        let record = try participantCall(db) { try ParticipantRecord.load(device: serial, from: store) }
        for line in record.lines { print("  " + line) }
    }
}

extension GatewayEnrollCommand {
    /// What the enrolment holds, as stored: the user, the passkey as the six digits entered when
    /// pairing (`--passkey 12345` is 012345), the address type, the link security, and the settings waiting for the
    /// bracelet's first sync (once a sync read its serial they are the participant record's, which
    /// the command prints instead).
    static func storedLines(_ enrolment: GatewayEnrolment) -> [String] {
        var lines: [String] = []
        if let user = enrolment.user, enrolment.serial == nil { lines.append("user: \(user)") }
        if enrolment.endpoint.hasPrefix("ble:") {
            let passkey = enrolment.passkey ?? Int(BraceletSecurity.defaultPasskey)
            lines.append("passkey: " + String(format: "%06d", passkey)
                         + (enrolment.passkey == nil ? " (the manual's; give --passkey if it was changed)" : " (entered when the bracelet asks for it)"))
            lines.append("address type: \(enrolment.addressType ?? "what its advertisement says")")
            lines.append(enrolment.linkSecurity.map { "link security: an \($0.rawValue) link is required; a device that offers less is refused" }
                         ?? "link security: learned from what the device answers, and kept once its link was secured")
        }
        for name in ParticipantSettingName.allCases where enrolment.serial == nil {
            if let value = enrolment.settings[name] { lines.append("\(name.rawValue): \(value)") }
        }
        return lines
    }
}

/// `gateway enroll --security`: the link an enrolled device needs.
enum EnrolSecurity: String, ExpressibleByArgument, CaseIterable {
    /// Learned from what the device answers, and kept once a link was secured.
    case auto
    /// An encrypted link from the first sync.
    case encrypted
    /// An encrypted and authenticated link from the first sync.
    case authenticated

    /// What the enrolment stores: `nil` for auto (learned).
    var required: EnrolledLinkSecurity? {
        switch self {
        case .auto: nil
        case .encrypted: .encrypted
        case .authenticated: .authenticated
        }
    }
}

/// `bracelet gateway remove`.
struct GatewayRemoveCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "End a bracelet's enrolment; its stored data and outbox stay."
    )

    @OptionGroup var log: LogOptions

    @Option(help: "The bracelet database.")
    var db: String

    @OptionGroup var which: GatewayEndpointOptions

    func run() throws {
        let endpoint = try which.endpoint()
        let store = try openStore(db, mustExist: false)
        guard try store.removeEnrolment(endpoint: endpoint.description) else {
            throw CLIError("\(endpoint) is not enrolled in \(db); `bracelet gateway status --db \(db)` lists the enrolled bracelets")
        }
        print("removed \(endpoint); its data stays in \(db)")
    }
}

/// `bracelet gateway status`.
struct GatewayStatusCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each enrolled bracelet and each sink, from the database (whether or not a gateway runs)."
    )

    @OptionGroup var log: LogOptions

    @Option(help: "The bracelet database.")
    var db: String

    @Flag(help: "Print JSON: {\"devices\":[...],\"sinks\":[...],\"events\":[...]}.")
    var json = false

    func run() throws {
        let store = try openStore(db, mustExist: true, filler: .enrolments)
        let status = try GatewayStatus(store: store)
        if status.devices.isEmpty { Log.info("note: no bracelet is enrolled in \(db): \(DatabaseFiller.enrolments.advice(db))") }
        if json {
            FileHandle.standardOutput.write(Data(status.json() + [10]))
        } else {
            print(status.table(), terminator: "")
        }
    }
}
