import BraceletStore
import BraceletSummaries
import Foundation

/// How a bracelet's days are summarised: its person's settings as enrolled.
///
/// The one place that turns an enrolment's settings into a summary configuration, the way `listen`
/// takes `--tz/--age/--hr-max`: when participant records hold these settings, only this changes.
public struct DeviceSettings: Sendable {
    /// Time zone, zones, quality threshold.
    public var configuration: SummaryConfiguration
    /// Age in years, when given (vitality metrics are stored only with it).
    public var age: Int?
    /// The study participant, when given: every delivery of the bracelet's data carries it.
    public var user: String?

    /// The settings of `enrolment`; a missing time zone is the machine's own.
    ///
    /// - Throws: ``GatewayError/invalidSettings(endpoint:reason:)`` when a stored setting is not valid.
    public init(enrolment: GatewayEnrolment) throws {
        do {
            let zone = try enrolment.timeZone.map { try SummaryConfiguration.timeZone(named: $0) } ?? TimeZone.current
            configuration = try SummaryConfiguration(age: enrolment.age, hrMax: enrolment.hrMax, timeZone: zone)
        } catch {
            throw GatewayError.invalidSettings(endpoint: enrolment.endpoint, reason: "\(error)")
        }
        age = enrolment.age
        user = enrolment.user
    }

    /// Assigns the bracelet `serial` to the participant, when one was given and it is not assigned
    /// already: called as soon as a sync learns the serial, before its first file is stored, so
    /// that every entry of its data carries the participant.
    public func assignParticipant(serial: String, in store: Store) throws {
        guard let user, !serial.isEmpty, try store.user(ofDevice: serial) != user else { return }
        try store.setUser(user, device: serial)
    }
}
