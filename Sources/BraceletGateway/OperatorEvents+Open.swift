import BraceletDecoder
import BraceletStore
import Foundation

extension OperatorEvents {
    /// The operator events of enrolment `e` whose condition still holds, by name, judged from the
    /// newest event of each name (`latest`, ``BraceletStore/Store/latestOperatorEvents()``) and
    /// what the database says now. An event's key names its occurrence, so:
    /// - `not_heard` holds while the device was not heard since the time its key names;
    /// - `sync_failing` holds while syncs still fail and none completed since the one its key names;
    /// - `battery_low` holds while the battery last read is at or below `thresholds`' (the gateway's
    ///   `--battery-low`, which raised it: no default, so that a caller cannot forget it);
    /// - `not_worn` holds while no slot after the unworn day its key names says worn (`zone` cuts
    ///   the days, as the gateway's syncs do);
    /// - `not_sending` holds while the sensor sent nothing since the value its key names;
    /// - `link_refused` holds while no sync completed since the one its key names.
    /// `clock_corrected` is done when written, and so is an event this build does not know.
    public static func open(for e: GatewayEnrolment, latest: [(key: String, kind: String, device: String, createdAt: Int64)],
                            store: Store, zone: TimeZone, now: Int64, thresholds: Thresholds) throws -> [String] {
        // Events are written under the serial once a sync read it, under the endpoint before.
        let names = Set([e.serial, e.endpoint].compactMap { $0 })
        var open = Set<String>()
        for event in latest where names.contains(event.device) {
            let name = String(event.kind.dropFirst("event:".count))
            let prefix = "event:\(event.device):\(name):"
            guard event.key.hasPrefix(prefix) else { continue }
            let occurrence = String(event.key.dropFirst(prefix.count))
            let holds: Bool
            switch OperatorEventName(rawValue: name) {
            case .notHeard:
                holds = occurrence == String(e.lastHeardAt ?? e.enrolledAt)
            case .syncFailing:
                holds = e.failures > 0 && occurrence == String(e.lastSyncAt ?? e.enrolledAt)
            case .batteryLow:
                holds = e.battery.map { $0 <= thresholds.batteryLowPercent } ?? false
            case .notWorn:
                guard let serial = e.serial, let day = LocalDate(iso: occurrence) else { holds = false; break }
                let after = ZonedTime.start(of: day.adding(days: 1), in: zone)
                holds = try store.wornSlotCount(device: serial, from: after, to: max(after, now)).worn == 0
            case .notSending:
                holds = e.lastSampleAt.map { occurrence == String($0) } ?? false
            case .linkRefused:
                holds = occurrence == String(e.lastSyncAt ?? e.enrolledAt)
            case .clockCorrected, nil:
                holds = false
            }
            if holds { open.insert(name) }
        }
        return open.sorted()
    }
}
