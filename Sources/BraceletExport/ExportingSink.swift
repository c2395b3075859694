import BraceletStore
import BraceletSync
import BraceletVitality
import Foundation

/// A sink that delivers each outbox entry in a standard format instead of the project's envelope:
/// it renders the entry with ``OutboxPayload`` (one-line JSON) and hands it to another sink
/// (webhook, JSON Lines). The entry's key, and so the webhook's `Idempotency-Key`, is unchanged.
public struct ExportingSink: OutboxSink {
    /// The sink that delivers the rendered entry.
    public let inner: any OutboxSink
    /// The format of the delivered body.
    public let format: ExportFormat
    /// The zone of every entry's times, given for this run (nil: each device's participant record's
    /// zone on the entry's date, else the summary's own offset).
    public let timeZone: TimeZone?
    /// The participant records of the devices, by serial: the zone of each entry's local times.
    public let records: [String: ParticipantRecord]
    /// The FHIR Patient id, if any.
    public let user: String?

    /// Wraps `inner`. CSV is refused: a JSON sink delivers one JSON value per entry.
    /// - Throws: ``ExportError/invalidRequest(_:)`` for `.csv`.
    public init(inner: any OutboxSink, format: ExportFormat, timeZone: TimeZone? = nil, user: String? = nil,
                records: [String: ParticipantRecord] = [:]) throws(ExportError) {
        guard format != .csv else {
            throw .invalidRequest("--payload csv is not a JSON body; choose omh, ieee1752, fhir or rook (or export csv with bracelet export)")
        }
        self.inner = inner
        self.format = format
        self.timeZone = timeZone
        self.user = user
        self.records = records
    }

    /// The inner sink's name with the format.
    public var name: String { "\(inner.name) as \(format.rawValue)" }

    /// Renders the entry and delivers it; an entry that cannot be rendered fails permanently (a
    /// retry would fail the same way), with the reason.
    public func deliver(_ entry: OutboxEntry) async throws -> DeliveryOutcome {
        var rendered = entry
        do {
            let zone = timeZone ?? records[entry.device]?.timeZone(on: entry.localDate)
            rendered.payload = try OutboxPayload.render(entry, as: format, timeZone: zone,
                                                        options: ExportOptions(user: user ?? entry.user, prettyPrinted: false))
        } catch let error as ExportError {
            return .permanentFailure(reason: "\(error)", httpStatus: nil)
        }
        return try await inner.deliver(rendered)
    }
}
