import BraceletDecoder
import BraceletProtocol

/// The one JSON Lines form of a heart-rate sample, written by `listen` (as notifications arrive) and
/// by `replay` (from a capture's notifications), so a script reads both the same way:
///
///     {"kind":"hr","t":"2026-06-19T03:55:02.000Z","bpm":54,"rr_ms":[1119]}
///
/// `t` is UTC with milliseconds (the time the notification arrived); `bpm` the measured rate (8- or
/// 16-bit on the wire); `rr_ms` the RR intervals the notification carried, converted from 1/1024 s
/// to whole milliseconds (empty when it carried none). Two keys appear only when the sensor sends
/// them, between `bpm` and `rr_ms`: `"contact":false` when the sensor reports that it has lost skin
/// contact (its rate is then unreliable; a sensor with contact, or without contact detection, gets
/// no key), and `"energy_kj"` when the notification carries Energy Expended (kJ since the sensor's
/// last reset). Rule: no key stands for a value the sensor did not send.
enum HeartRateSampleLine {
    /// Appends the line for `measurement` received at `unixMilliseconds`, newline included.
    static func append(_ measurement: HeartRateMeasurement, unixMilliseconds: Int64, to line: inout [UInt8]) {
        // Written with the canonical writer's primitives, in this fixed key order (the schema above).
        CanonicalJSON.appendLiteral("{\"kind\":\"hr\",\"t\":\"", to: &line)
        UTCTime.appendISO8601(unixMilliseconds: unixMilliseconds, to: &line)
        CanonicalJSON.appendLiteral("\",\"bpm\":", to: &line)
        CanonicalJSON.append(Int64(measurement.bpm), to: &line)
        if measurement.contactDetected == false { CanonicalJSON.appendLiteral(",\"contact\":false", to: &line) }
        if let energy = measurement.energyExpendedKJ {
            CanonicalJSON.appendLiteral(",\"energy_kj\":", to: &line)
            CanonicalJSON.append(Int64(energy), to: &line)
        }
        CanonicalJSON.appendLiteral(",\"rr_ms\":[", to: &line)
        for (i, rr) in measurement.rrMilliseconds.enumerated() {
            if i > 0 { CanonicalJSON.appendLiteral(",", to: &line) }
            CanonicalJSON.append(Int64(rr), to: &line)
        }
        CanonicalJSON.appendLiteral("]}\n", to: &line)
    }

    /// The line for `measurement` received at `unixMilliseconds`, newline included.
    static func string(_ measurement: HeartRateMeasurement, unixMilliseconds: Int64) -> String {
        var line: [UInt8] = []
        append(measurement, unixMilliseconds: unixMilliseconds, to: &line)
        return String(decoding: line, as: UTF8.self)
    }
}
