import BraceletDecoder
import BraceletStore
import Foundation

extension OperatorEvents {
    /// The operator events of enrolment `e` whose condition still holds, by name, judged from the
    /// newest event of each name (`latest`, ``BraceletStore/Store/latestOperatorEvents()``) and
    /// what the database says now. An event's key names its occurrence, so:
    /// - `not_heard` holds while the device was not heard since the time its key names;
    /// - `sync_failing` holds while syncs still fail and none completed since the one its key names;
    /// - `battery_low` holds while the battery last read is at or below the threshold;
    /// - `not_worn` holds while no slot after the unworn day its key names says worn (`zone` cuts
    ///   the days, as the gateway's syncs do).
    /// Other events (`clock_corrected`) are done when written.
    public static func open(for e: GatewayEnrolment, latest: [(key: String, kind: String, device: String, createdAt: Int64)],
                            store: Store, zone: TimeZone, now: Int64, thresholds: Thresholds = Thresholds()) throws -> [String] {
        // Events are written under the serial once a sync read it, under the endpoint before.
        let names = Set([e.serial, e.endpoint].compactMap { $0 })
        var open: [String] = []
        for event in latest where names.contains(event.device) {
            let name = String(event.kind.dropFirst("event:".count))
            let prefix = "event:\(event.device):\(name):"
            guard event.key.hasPrefix(prefix) else { continue }
            let occurrence = String(event.key.dropFirst(prefix.count))
            let holds: Bool
            switch name {
            case "not_heard":
                holds = occurrence == String(e.lastHeardAt ?? e.enrolledAt)
            case "sync_failing":
                holds = e.failures > 0 && occurrence == String(e.lastSyncAt ?? e.enrolledAt)
            case "battery_low":
                holds = e.battery.map { $0 <= thresholds.batteryLowPercent } ?? false
            case "not_worn":
                guard let serial = e.serial, let day = LocalDate(iso: occurrence) else { holds = false; break }
                let after = ZonedTime.start(of: day.adding(days: 1), in: zone)
                holds = try store.wornSlotCount(device: serial, from: after, to: max(after, now)).worn == 0
            default:
                holds = e.battery.map { $0 <= thresholds.batteryLowPercent } ?? false
            }
            if holds { open.append(name) }
        }
        return open.sorted()
    }
}
