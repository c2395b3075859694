import BraceletDecoder
import BraceletProtocol
import BraceletStore
import BraceletTransport
import Foundation

/// The conditions someone must look at, written to the outbox as entries of kind `event:NAME`
/// (delivered like summaries, listed by `gateway status`): `not_heard` (nothing from the bracelet
/// for a day), `battery_low`, `not_worn` (a whole local day of slots, none worn), `clock_corrected`
/// (its clock was more than a minute off when set), `sync_failing` (several failed syncs in a row),
/// `not_sending` (an enrolled standard sensor sent nothing for a while: out of range, off, flat),
/// `link_refused` (the device did not give the link security its enrolment requires, and was refused).
/// Each occurrence is written once: its outbox key names the occurrence (the day, the last time
/// heard, the start of the failing run), so checking again writes nothing.
public struct OperatorEvents: Sendable {
    /// When an event is raised.
    public struct Thresholds: Sendable {
        /// Not heard for this long (seconds, gateway clock).
        public var notHeardSeconds: Int64 = 86_400
        /// Battery at or below this percent.
        public var batteryLowPercent = 15
        /// A clock off by more than this (seconds).
        public var clockCorrectionSeconds: Int64 = 60
        /// This many failed syncs in a row.
        public var failures = 3
        /// An enrolled standard sensor that sent values has sent none for this long (seconds,
        /// gateway clock): a strap has no memory, so this is data being lost.
        public var sensorSilentSeconds: Int64 = 300

        /// The defaults.
        public init() {}
    }

    let store: Store
    let thresholds: Thresholds
    let clock: ScaledClock

    /// Raises `not_heard` for every enrolment silent longer than the threshold.
    func checkNotHeard(_ enrolments: [GatewayEnrolment], onEvent: (GatewayEvent) -> Void) {
        let now = clock.nowMilliseconds()
        for e in enrolments {
            let since = e.lastHeardAt ?? e.enrolledAt
            guard now - since > thresholds.notHeardSeconds * 1_000 else { continue }
            let hours = (now - since) / 3_600_000
            raise(.notHeard, e, occurrence: "\(since)", at: now, zone: nil,
                  detail: "not heard for \(hours) h (since \(UTCTime.iso8601(unixMilliseconds: since)))", onEvent: onEvent)
        }
    }

    /// Raises `not_sending` for every enrolled standard sensor whose latest value is older than the
    /// threshold; once per silence (its occurrence is the latest value's arrival).
    func checkNotSending(_ enrolments: [GatewayEnrolment], onEvent: (GatewayEvent) -> Void) {
        let now = clock.nowMilliseconds()
        for e in enrolments where e.sensor != nil {
            guard let last = e.lastSampleAt, now - last > thresholds.sensorSilentSeconds * 1_000 else { continue }
            raise(.notSending, e, occurrence: "\(last)", at: now, zone: nil,
                  detail: "the \(e.sensor ?? "sensor") sent nothing for \((now - last) / 60_000) min (last value at "
                    + "\(UTCTime.iso8601(unixMilliseconds: last))): every second it is not heard is lost; check that it is worn, charged and in range",
                  onEvent: onEvent)
        }
    }

    /// The events the bracelet's own report shows (battery, clock), raised as soon as it is read at
    /// the start of a session, before set time corrects the clock: a sync cut short afterwards (a
    /// dropped link, a killed process) cannot lose them.
    func deviceRead(_ e: GatewayEnrolment, previousOffsetMinutes: Int?, state: DeviceState, readAt: Int64, zone: TimeZone,
                    onEvent: (GatewayEvent) -> Void) {
        let today = ZonedTime.date(ofUnix: readAt / 1_000, in: zone)
        if let battery = state.batteryPercent, battery <= thresholds.batteryLowPercent, state.isCharging != true {
            raise(.batteryLow, e, occurrence: today.description, at: readAt, zone: zone,
                  detail: "battery at \(battery) %: charge the bracelet", onEvent: onEvent)
        }
        // Current Time is local time in the offset set last; before the gateway set one it is unknown.
        // The read and its report are a quarter of a real second apart at most: on a clock running
        // faster than real time that quarter second is allowed for too.
        if let bytes = state.currentTime, let local = SIGDateTime(bytes)?.localSeconds, let previousOffsetMinutes {
            let error = local - Int64(previousOffsetMinutes) * 60 - readAt / 1_000
            let slack = clock.scale > 1 ? Int64((clock.scale * 0.25).rounded(.up)) : 0
            if abs(error) > thresholds.clockCorrectionSeconds + slack {
                raise(.clockCorrected, e, occurrence: "\(readAt)", at: readAt, zone: zone,
                      detail: "its clock was \(abs(error)) s \(error > 0 ? "ahead" : "behind"); set to the gateway's time", onEvent: onEvent)
            }
        }
    }

    /// The events a sync's end shows: repeated failures (unless `failuresCount` is false: a
    /// sensor's), and (after a completed sync) the previous local day not worn.
    func afterSync(_ e: GatewayEnrolment, zone: TimeZone, completed: Bool, failuresCount: Bool = true, onEvent: (GatewayEvent) -> Void) {
        let now = clock.nowMilliseconds()
        let today = ZonedTime.date(ofUnix: now / 1_000, in: zone)
        if failuresCount, !completed, e.failures == thresholds.failures {
            raise(.syncFailing, e, occurrence: "\(e.lastSyncAt ?? e.enrolledAt)", at: now, zone: zone,
                  detail: "\(e.failures) syncs failed in a row; last: \(e.lastError ?? "see the log")", onEvent: onEvent)
        }
        if completed, let serial = e.serial {
            let yesterday = today.adding(days: -1)
            let start = ZonedTime.start(of: yesterday, in: zone), end = ZonedTime.start(of: today, in: zone)
            // The whole day: its slots cover at least 90 % of it (a day with a gap in its record is
            // not called unworn), and none says worn.
            if let counts = try? store.wornSlotCount(device: serial, from: start, to: end),
               counts.slots > 0, counts.worn == 0, counts.seconds >= (end - start) * 9 / 10 {
                raise(.notWorn, e, occurrence: yesterday.description, at: now, zone: zone,
                      detail: "not worn on \(yesterday)", onEvent: onEvent)
            }
        }
    }

    /// Raises `link_refused`: the device at `e`'s address did not give the `required` link (another
    /// device at the address, or the enrolled one reset or replaced); nothing was sent to it. Once
    /// per run of refusals: the occurrence is the last sync before them.
    func linkRefused(_ e: GatewayEnrolment, required: EnrolledLinkSecurity, refusal: PairingError, onEvent: (GatewayEvent) -> Void) {
        raise(.linkRefused, e, occurrence: "\(e.lastSyncAt ?? e.enrolledAt)", at: clock.nowMilliseconds(), zone: nil,
              detail: "refused: the device did not give the \(required.rawValue) link its enrolment requires: \(refusal) "
                + "Unless the enrolled device was reset, another device is using its address: leave it refused.", onEvent: onEvent)
    }

    private func raise(_ event: OperatorEventName, _ e: GatewayEnrolment, occurrence: String, at: Int64, zone: TimeZone?, detail: String,
                       onEvent: (GatewayEvent) -> Void) {
        let device = e.serial ?? e.endpoint, name = event.rawValue
        // Without a session's zone (not_heard): the bracelet's own, as its syncs use it.
        let zone = zone ?? (try? DeviceSettings(enrolment: e))?.timeZone(serial: e.serial, store: store) ?? .current
        let date = ZonedTime.date(ofUnix: at / 1_000, in: zone)
        do {
            if try store.enqueueOperatorEvent(key: "event:\(device):\(name):\(occurrence)", name: name, device: device,
                                              localDate: date.description, at: at, detail: detail) {
                onEvent(.operatorEvent(device: device, name: name, detail: detail))
            }
        } catch {
            onEvent(.problem("cannot write the \(name) event of \(device): \(error)"))
        }
    }
}
