import BraceletSummaries

/// One FHIR R4/R4B `Bundle` (type `collection`): a `Device` (model, serial), per day a summary
/// `Observation` whose `hasMember` lists that day's observations, and `Observation`s with LOINC
/// codes and UCUM units for the daily values and each sleep session. With a user id the bundle
/// holds the `Patient` too (its identifier only: no name, birth date or other personal data), and
/// every observation's `subject` refers to that entry by its `fullUrl`: a bundle of type
/// `collection` with `urn:uuid` entries resolves only such references within itself (a relative
/// `Patient/<id>` would point at a server the receiver may not have).
///
/// The daily panel is coded in a code system of ours (``codeSystem``, code ``dailyPanelCode``):
/// LOINC has no panel for a wearable's day of heart rate, activity, sleep and temperature (its
/// panels are for vital-sign sets or questionnaires), and a panel coded with a LOINC panel whose
/// members differ would say something false to the receiver.
///
/// A day that is not whole says so: the observations of a day not over yet are `preliminary`, and
/// the panel of a partial or ongoing day carries a `note` with the minutes recorded.
public enum FHIRExport {
    /// The canonical URL of the bracelet's own FHIR code system (stable; changing it breaks every
    /// receiver that matches on it).
    public static let codeSystem = "urn:bracelet:fhir:CodeSystem:observation"
    /// The code, in ``codeSystem``, of the Observation that groups one local day's observations.
    public static let dailyPanelCode = "daily-summary"
    static let loinc = "http://loinc.org"
    static let ucum = "http://unitsofmeasure.org"
    static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"

    /// The bundle of `dataset`; `user` is the Patient id the observations are about.
    public static func bundle(_ dataset: ExportDataset, user: String?) -> JSONValue {
        bundle(dataset, user: user, sessions: [])
    }

    /// The bundle of `dataset` plus `sessions` filed under no day of it (an outbox sleep entry).
    static func bundle(_ dataset: ExportDataset, user: String?, sessions: [SleepSession]) -> JSONValue {
        let writer = DataPointWriter(dataset: dataset)
        let deviceURL = "urn:uuid:" + uuid("\(dataset.device)|Device")
        let device = JSONValue.compact([
            "resourceType": "Device",
            "identifier": [["system": "urn:bracelet:serial", "value": .string(dataset.device)]],
            "serialNumber": .string(dataset.device),
            "deviceName": dataset.model.map { [["name": .string("Bracelet \($0)"), "type": "model-name"]] },
            "modelNumber": dataset.model.map { .string($0) },
        ])
        var entries: [JSONValue] = [["fullUrl": .string(deviceURL), "resource": device]]
        var patientURL: String?
        if let user {
            let url = "urn:uuid:" + uuid("\(user)|Patient")
            entries.append(["fullUrl": .string(url), "resource": patient(user)])
            patientURL = url
        }
        let context = Context(writer: writer, deviceURL: deviceURL, patientURL: patientURL)
        for day in dataset.days {
            var members: [String] = []
            let standing = day.summary.coverage.status(at: dataset.now)
            for measure in Measure.all(of: day.summary, mainSleep: day.mainSleep, slotSeconds: dataset.slotSeconds) where measure.daily {
                guard let (url, resource) = observation(measure, context, day: standing) else { continue }
                entries.append(["fullUrl": .string(url), "resource": resource])
                members.append(url)
            }
            for session in day.sleepSessions {
                let (url, resource) = sleep(session, context)
                entries.append(["fullUrl": .string(url), "resource": resource])
                members.append(url)
            }
            guard !members.isEmpty else { continue }
            let url = "urn:uuid:" + uuid("\(dataset.device)|day|\(day.summary.date)")
            let panelCode: JSONValue = [
                "coding": [["system": .string(codeSystem), "code": .string(dailyPanelCode), "display": "Bracelet daily summary"]],
                "text": .string("Bracelet daily summary \(day.summary.date)"),
            ]
            var panel = context.base(code: panelCode, category: "activity",
                                     start: day.summary.dayStart, end: day.summary.dayEnd, day: standing)
            panel["hasMember"] = .array(members.map { ["reference": .string($0)] })
            if let reason = standing.reason { panel["note"] = [["text": .string("Not a whole day (\(reason)); not scored.")]] }
            entries.append(["fullUrl": .string(url), "resource": .object(panel)])
        }
        for session in sessions {
            let (url, resource) = sleep(session, context)
            entries.append(["fullUrl": .string(url), "resource": resource])
        }
        return ["resourceType": "Bundle", "type": "collection", "entry": .array(entries)]
    }

    /// The identifier system of the participant's user id (the id the participant record holds).
    public static let userIdentifierSystem = "urn:bracelet:user"

    /// The Patient of `user`: the user id as its identifier (and as its id, when FHIR's id syntax
    /// allows it), nothing else, so the bundle carries no personal data the record does not.
    static func patient(_ user: String) -> JSONValue {
        JSONValue.compact([
            "resourceType": "Patient",
            "id": isResourceID(user) ? .string(user) : nil,
            "identifier": [["system": .string(userIdentifierSystem), "value": .string(user)]],
        ])
    }

    /// Whether `text` is a FHIR resource id: 1-64 of `A-Z a-z 0-9 - .`.
    static func isResourceID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."): true
            default: false
            }
        }
    }

    struct Context {
        let writer: DataPointWriter
        let deviceURL: String
        /// The `fullUrl` of the bundle's Patient entry, when a user id was given.
        let patientURL: String?

        /// The fields every observation has. A value of a day that is not over yet (`day`) is
        /// `preliminary`: it changes as the rest of the day is recorded.
        func base(code: JSONValue, category: String, start: Int64, end: Int64, day: DayCoverage.Status = .complete) -> [String: JSONValue] {
            var resource: [String: JSONValue] = [
                "resourceType": "Observation",
                "status": day == .notOver ? "preliminary" : "final",
                "category": [["coding": [["system": .string(FHIRExport.categorySystem), "code": .string(category)]]]],
                "code": code,
                "effectivePeriod": ["start": .string(writer.dataset.clock.timestamp(start)), "end": .string(writer.dataset.clock.timestamp(end))],
                "device": ["reference": .string(deviceURL)],
            ]
            if let patientURL { resource["subject"] = ["reference": .string(patientURL)] }
            return resource
        }
    }

    /// LOINC code and display of the daily values that have one; others are not in the bundle.
    static func code(_ m: Measure) -> (String, String, String)? {
        switch (m.kind, m.statistic) {
        case (.heartRate, .average): ("8867-4", "Heart rate", "vital-signs")
        case (.restingHeartRate, _): ("40443-4", "Heart rate --resting", "vital-signs")
        case (.respiratoryRate, .average): ("9279-1", "Respiratory rate", "vital-signs")
        case (.oxygenSaturation, .average): ("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry", "vital-signs")
        case (.skinTemperature, .average), (.coreTemperature, .average): ("8310-5", "Body temperature", "vital-signs")
        case (.steps, .sum): ("55423-8", "Number of steps in unspecified time Pedometer", "activity")
        case (.hrvSDNN, _): ("80404-7", "R-R interval.standard deviation (Heart rate variability)", "vital-signs")
        default: nil
        }
    }

    static func quantity(_ value: Double, _ unit: ExportUnit) -> JSONValue {
        ["value": number(value), "unit": .string(unit.label), "system": .string(ucum), "code": .string(unit.ucum)]
    }

    static func observation(_ m: Measure, _ context: Context, day: DayCoverage.Status) -> (String, JSONValue)? {
        guard let (code, display, category) = code(m) else { return nil }
        var resource = context.base(code: ["coding": [["system": .string(loinc), "code": .string(code), "display": .string(display)]]],
                                    category: category, start: m.start, end: m.end, day: day)
        resource["valueQuantity"] = quantity(m.value, m.unit)
        switch m.kind {
        case .skinTemperature: resource["bodySite"] = ["text": "skin of the wrist"]
        case .coreTemperature: resource["bodySite"] = ["text": "body core (estimated from the wrist)"]
        default: break
        }
        let url = "urn:uuid:" + uuid("\(context.writer.dataset.device)|fhir|\(m.kind.rawValue)|\(m.statistic.rawValue)|\(m.start)|\(m.end)")
        return (url, .object(resource))
    }

    static func sleep(_ s: SleepSession, _ context: Context) -> (String, JSONValue) {
        func component(_ code: String?, _ display: String, _ value: JSONValue, integer: Bool = false) -> JSONValue {
            let concept: JSONValue = code.map { ["coding": [["system": .string(loinc), "code": .string($0), "display": .string(display)]]] }
                ?? ["text": .string(display)]
            return .object(["code": concept, integer ? "valueInteger" : "valueQuantity": value])
        }
        var resource = context.base(code: ["coding": [["system": .string(loinc), "code": "93832-4", "display": "Sleep duration"]]],
                                    category: "activity", start: s.startSession, end: s.stopSession)
        resource["valueQuantity"] = quantity(Double(s.totalSleepDuration), .seconds)
        resource["component"] = [
            component("93830-8", "Light sleep duration", quantity(Double(s.totalSecsLight), .seconds)),
            component("93831-6", "Deep sleep duration", quantity(Double(s.totalSecsDeep), .seconds)),
            component("93829-0", "REM sleep duration", quantity(Double(s.totalSecsREM), .seconds)),
            component(nil, "Awake duration within the sleep session", quantity(Double(s.totalSecsAwake), .seconds)),
            component("103215-0", "Wake after sleep onset", quantity(Double(s.wakeAfterSleepOnset), .seconds)),
            component("103211-9", "Number of awakenings", .int(Int64(s.totalSleepToAwakeTransitions)), integer: true),
        ]
        if !s.isMainSleep { resource["note"] = [["text": .string("nap (not the main sleep of \(s.recordDate))")]] }
        let url = "urn:uuid:" + uuid("\(context.writer.dataset.device)|fhir|sleep|\(s.startSession)")
        return (url, .object(resource))
    }
}
