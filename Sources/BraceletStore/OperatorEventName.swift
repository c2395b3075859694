/// The name of an operator event the gateway raises (its `OperatorEvents`), as its outbox kind
/// (`event:NAME`) and the metrics' `event` label carry it. The one list of them: `sync --kinds`
/// takes exactly these, before the first one is written.
public enum OperatorEventName: String, Sendable, CaseIterable {
    /// Nothing heard from the bracelet for longer than the threshold.
    case notHeard = "not_heard"
    /// Its battery at or below the threshold, not charging.
    case batteryLow = "battery_low"
    /// A whole local day of slots, none worn.
    case notWorn = "not_worn"
    /// Its clock was more than the threshold off when set.
    case clockCorrected = "clock_corrected"
    /// Several failed syncs in a row.
    case syncFailing = "sync_failing"
    /// An enrolled standard sensor sent nothing for longer than the threshold.
    case notSending = "not_sending"
    /// The device did not give the link security its enrolment requires, and was refused.
    case linkRefused = "link_refused"
}
