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
    }
}
