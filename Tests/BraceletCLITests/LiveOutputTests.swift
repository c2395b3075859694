import ArgumentParser
import BraceletProtocol
import BraceletTransport
import Foundation
import Testing
@testable import BraceletCLI

@Suite struct LiveOutputTests {
    /// 2026-06-19T03:55:02.000Z, the first live sample of the bundled v2-three-days capture.
    let t: Int64 = 1_781_841_302_000

    @Test func aSampleLineIsReplaysLineForTheBundledCapturesKind() {
        // Contact detected, no energy: the form replay prints for the bundled captures.
        let m = HeartRateMeasurement(bpm: 54, contactDetected: true, energyExpendedKJ: nil, rrIntervals1024: [1146])
        #expect(HeartRateSampleLine.string(m, unixMilliseconds: t) == "{\"kind\":\"hr\",\"t\":\"2026-06-19T03:55:02.000Z\",\"bpm\":54,\"rr_ms\":[1119]}\n")
    }

    @Test func aSampleLineCarriesLostContactEnergyAnd16BitRatesFromAStrap() throws {
        // Flags 0x1D: 16-bit rate, contact supported but not detected, energy, RR. 300 bpm, 1000 kJ, RR 512/1024 s and 1024/1024 s.
        let m = try HeartRateMeasurement(value: [0x1D, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x02, 0x00, 0x04])
        #expect(HeartRateSampleLine.string(m, unixMilliseconds: t + 250)
                == "{\"kind\":\"hr\",\"t\":\"2026-06-19T03:55:02.250Z\",\"bpm\":300,\"contact\":false,\"energy_kj\":1000,\"rr_ms\":[500,1000]}\n")
        // A sensor that does not report contact, sending no RR: no contact key, empty list.
        let plain = try HeartRateMeasurement(value: [0x00, 72])
        #expect(HeartRateSampleLine.string(plain, unixMilliseconds: t) == "{\"kind\":\"hr\",\"t\":\"2026-06-19T03:55:02.000Z\",\"bpm\":72,\"rr_ms\":[]}\n")
        #expect(ListenCommand.tableLine(m, unixMilliseconds: t) == "2026-06-19T03:55:02.000Z  300 bpm  rr 500,1000 ms  no skin contact  1000 kJ\n")
    }

    /// An oximeter's and a thermometer's lines: the fixed key order, a key left out for a value
    /// not sent, a whole temperature keeping its `.0`, and each line one JSON object.
    @Test func sensorLinesAreJSONInTheFixedKeyOrder() throws {
        let temp = SensorSample(receivedAtMilliseconds: t + 3_000, measurement: .temperature(TemperatureMeasurement(
            value: .number(mantissa: 371, exponent: -1), type: .tympanum)))
        #expect(SensorSampleLine.string(temp, table: false) == "{\"kind\":\"temp\",\"t\":\"2026-06-19T03:55:05.000Z\",\"celsius\":37.1,\"site\":\"tympanum\"}\n")
        let whole = SensorSample(receivedAtMilliseconds: t, measurement: .temperature(TemperatureMeasurement(
            value: .number(mantissa: 37, exponent: 0), type: .gastrointestinalTract)))
        #expect(SensorSampleLine.string(whole, table: false) == "{\"kind\":\"temp\",\"t\":\"2026-06-19T03:55:02.000Z\",\"celsius\":37.0,\"site\":\"gastro-intestinal tract\"}\n")
        let plx = SensorSample(receivedAtMilliseconds: t, measurement: .plxContinuous(PLXContinuousMeasurement(
            normal: SpO2PulseRate(spo2: .number(mantissa: 97, exponent: 0), pulseRate: .notANumber))))
        #expect(SensorSampleLine.string(plx, table: false) == "{\"kind\":\"spo2\",\"t\":\"2026-06-19T03:55:02.000Z\",\"spo2\":97}\n")
        #expect(SensorSampleLine.string(plx, table: true) == "2026-06-19T03:55:02.000Z  SpO2 97 %  pulse -\n")
        for sample in [temp, whole, plx] {
            let line = try #require(SensorSampleLine.string(sample, table: false))
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
        }
    }

    @Test func anInterruptedListenExitsWith128PlusTheSignalUnlessItsSyncHadCompleted() {
        #expect(ListenCommand.interruptedStatus(signal: 0, exitAfterSync: true, syncCompleted: false) == nil)
        #expect(ListenCommand.interruptedStatus(signal: SIGINT, exitAfterSync: true, syncCompleted: false) == 130)
        #expect(ListenCommand.interruptedStatus(signal: SIGTERM, exitAfterSync: true, syncCompleted: false) == 143)
        #expect(ListenCommand.interruptedStatus(signal: SIGTERM, exitAfterSync: true, syncCompleted: true) == nil)
        // Without --exit-after-sync only a signal ends the live samples: always interrupted.
        #expect(ListenCommand.interruptedStatus(signal: SIGINT, exitAfterSync: false, syncCompleted: true) == 130)
        #expect(ListenCommand.configuration.discussion.contains("130 when SIGINT (Ctrl-C) and 143 when SIGTERM"))
    }

    @Test func fixedValueOptionsNameTheirChoices() throws {
        #expect(throws: (any Error).self) { try ListenCommand.parse(["--via", "unix:/x", "--format", "xml"]) }
        let message = ListenCommand.message(for: CleanExit.helpRequest(ListenCommand.self))
        #expect(message.contains("values: jsonl, table, json"))
        #expect(message.contains("values: public, random"))
        // Help wraps long lines: compare with the wrapping undone.
        let simulate = SimulateCommand.message(for: CleanExit.helpRequest(SimulateCommand.self))
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(simulate.contains("values: bracelet, heart-rate, pulse-oximeter, thermometer"))
        #expect(simulate.contains("values: v1, v2"))
        do {
            _ = try SimulateCommand.parse(["--serve", "unix:/x", "--profile", "strap"])
            Issue.record("--profile strap was accepted")
        } catch {
            #expect(SimulateCommand.message(for: error).contains("'bracelet', 'heart-rate', 'pulse-oximeter' or 'thermometer'"))
        }
        #expect(try SimulateCommand.parse(["--serve", "unix:/x", "--profile", "heart-rate"]).profile == .heartRate)
    }
}
