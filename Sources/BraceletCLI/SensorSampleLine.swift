import BraceletDecoder
import BraceletProtocol
import BraceletTransport

/// The JSON Lines form of an oximeter's and a thermometer's values, printed by `listen` beside the
/// heart-rate lines (``HeartRateSampleLine``), in a fixed key order:
///
///     {"kind":"spo2","t":"2026-06-19T03:55:02.000Z","spo2":97,"pr":61}
///     {"kind":"temp","t":"2026-06-19T03:55:05.000Z","celsius":37.1,"site":"tympanum"}
///
/// `t` is the arrival (UTC, milliseconds); `spo2` percent and `pr` beats per minute of a PLX
/// measurement (a key is left out for a value the oximeter could not give: NaN, NRes),
/// `"spot":true` for a spot-check; `celsius` of a temperature (converted from °F when sent so),
/// `site` when the thermometer says where it measured. Rule: no key stands for a value not sent.
enum SensorSampleLine {
    /// The line of `sample` (newline included), or `nil` for a value printed otherwise (heart
    /// rate: ``HeartRateSampleLine``) or not at all (battery). Written with the canonical writer's
    /// primitives (``BraceletDecoder/CanonicalJSON``), as ``HeartRateSampleLine`` is: numbers,
    /// strings and times have one spelling in every JSON the program writes.
    static func string(_ sample: SensorSample, table: Bool) -> String? {
        let ms = sample.receivedAtMilliseconds
        switch sample.measurement {
        case .plxContinuous(let m): return spo2(m.normal, spot: false, unixMilliseconds: ms, table: table)
        case .plxSpotCheck(let m): return spo2(m.reading, spot: true, unixMilliseconds: ms, table: table)
        case .temperature(let m):
            guard let celsius = m.celsius else { return nil }
            let value = (celsius * 100).rounded() / 100
            if table { return "\(UTCTime.iso8601(unixMilliseconds: ms))  \(value) °C" + (m.type.map { "  \($0)" } ?? "") + "\n" }
            var line: [UInt8] = []
            CanonicalJSON.appendLiteral("{\"kind\":\"temp\",\"t\":\"", to: &line)
            UTCTime.appendISO8601(unixMilliseconds: ms, to: &line)
            CanonicalJSON.appendLiteral("\",\"celsius\":", to: &line)
            CanonicalJSON.appendDescription(value, to: &line)
            if let site = m.type {
                CanonicalJSON.appendLiteral(",\"site\":", to: &line)
                CanonicalJSON.appendString(site.description, to: &line)
            }
            CanonicalJSON.appendLiteral("}\n", to: &line)
            return String(decoding: line, as: UTF8.self)
        case .heartRate, .battery:
            return nil
        }
    }

    private static func spo2(_ reading: SpO2PulseRate, spot: Bool, unixMilliseconds ms: Int64, table: Bool) -> String {
        let spo2 = reading.spo2.value.map { Int64($0.rounded()) }, pr = reading.pulseRate.value.map { Int64($0.rounded()) }
        if table {
            return "\(UTCTime.iso8601(unixMilliseconds: ms))  SpO2 \(spo2.map { "\($0) %" } ?? "-")  pulse \(pr.map { "\($0) bpm" } ?? "-")"
                + (spot ? "  spot-check" : "") + "\n"
        }
        var line: [UInt8] = []
        CanonicalJSON.appendLiteral("{\"kind\":\"spo2\",\"t\":\"", to: &line)
        UTCTime.appendISO8601(unixMilliseconds: ms, to: &line)
        CanonicalJSON.appendLiteral("\"", to: &line)
        if let spo2 {
            CanonicalJSON.appendLiteral(",\"spo2\":", to: &line)
            CanonicalJSON.append(spo2, to: &line)
        }
        if let pr {
            CanonicalJSON.appendLiteral(",\"pr\":", to: &line)
            CanonicalJSON.append(pr, to: &line)
        }
        if spot { CanonicalJSON.appendLiteral(",\"spot\":true", to: &line) }
        CanonicalJSON.appendLiteral("}\n", to: &line)
        return String(decoding: line, as: UTF8.self)
    }
}
