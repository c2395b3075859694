import BraceletStore
import BraceletSummaries
import BraceletVitality
import Foundation

/// The person's settings given at enrolment (`gateway enroll --user` and the options of `person
/// set`) that are not in the bracelet's participant record yet: a record belongs to a serial, which only a sync
/// reads. As soon as one does, before any of its data is stored, they are written into the record
/// (``BraceletVitality/Participants/set(_:device:store:now:)``, which recomputes what they change)
/// and dropped from the enrolment, so a later `bracelet person set` is never undone by the gateway.
/// Every day is computed with the record, as `listen` computes it.
public struct DeviceSettings: Sendable {
    /// The change the enrolment asks of the participant record.
    public let change: ParticipantChange

    /// The settings of `enrolment`.
    ///
    /// - Throws: ``GatewayError/invalidSettings(endpoint:reason:)`` when a stored setting is not a
    ///   value of it or out of its range (checked as the days will be computed with it).
    public init(enrolment: GatewayEnrolment) throws {
        let settings: ParticipantProfile
        do throws(ParticipantError) {
            settings = try ParticipantProfile(texts: enrolment.settings, device: enrolment.endpoint)
            try settings.validateRanges(device: enrolment.endpoint)
        } catch {
            let reason: String
            switch error {
            case .invalid(let problem): reason = "\(problem)"
            case let .damaged(_, setting, value):
                reason = "the enrolment holds \"\(value)\" as \(setting.rawValue), which is not a value of it: enrol it again with \(setting.flag) VALUE"
            default: reason = "\(error)"
            }
            throw GatewayError.invalidSettings(endpoint: enrolment.endpoint, reason: reason)
        }
        change = ParticipantChange(settings: settings, user: enrolment.user.map { .set($0) } ?? .keep)
    }

    /// Whether the enrolment holds nothing for the record.
    public var isEmpty: Bool { change.settings.isEmpty && change.user == .keep }

    /// The zone the bracelet's clock is set to: its record's now (the serial known from an earlier
    /// sync), else the one given at enrolment, else this machine's.
    public func timeZone(serial: String?, store: Store) -> TimeZone {
        if let serial, let recorded = try? ParticipantRecord.load(device: serial, from: store).current().timeZone { return recorded }
        return change.settings.timeZone ?? .current
    }

    /// Writes the settings into the participant record of `serial` and drops them from the
    /// enrolment of `endpoint`; nothing to write: nothing done.
    public func apply(serial: String, endpoint: String, store: Store) throws {
        guard !isEmpty, !serial.isEmpty else { return }
        _ = try Participants.set(change, device: serial, store: store)
        try store.clearEnrolmentSettings(endpoint: endpoint)
    }
}
