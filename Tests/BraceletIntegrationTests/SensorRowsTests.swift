import BraceletDecoder
import BraceletIngest
import BraceletProtocol
import BraceletStore
import BraceletSummaries
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// The rules that turn a standard sensor's measurements into a device's rows (SensorRows), and a
/// stream of them through the ingest pipeline into the day's stored summary.
@Suite("Standard sensor values as rows, and their day")
struct SensorRowsTests {
    let t0: Int64 = 1_780_000_000_000  // 2026-05-28T20:26:40Z, ms

    func hr(_ bpm: Int, contact: Bool?, rr: [Int] = [], energy: Int? = nil) -> SensorMeasurement {
        .heartRate(HeartRateMeasurement(bpm: bpm, contactDetected: contact, energyExpendedKJ: energy,
                                        rrIntervals1024: rr.map { UInt16((Double($0) * 1.024).rounded()) }))
    }

    @Test func aStrapsSecondsBecomeSlotsWithContactAsWearing() {
        var rows = SensorRows(profiles: [.heartRate], timeZone: TimeZone(identifier: "UTC"), battery: 77)
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 120, measurement: hr(61, contact: true, energy: 100)))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 1_120, measurement: hr(62, contact: true, energy: 102)))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 2_120, measurement: hr(0, contact: false)))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 3_120, measurement: hr(70, contact: nil)))
        let (slots, _) = rows.take()
        #expect(slots.map(\.start) == [1_780_000_000, 1_780_000_001, 1_780_000_002, 1_780_000_003])
        #expect(slots.map(\.bpm) == [61, 62, nil, 70])
        #expect(slots.map(\.wearing) == [4, 4, 0, nil])
        #expect(slots.map(\.bpmQuality) == [4, 4, 0, 4])
        // 2 kJ between the first two values is the second one's energy; the first has no earlier value.
        #expect(slots.map(\.energyCal) == [nil, 478, nil, nil])
        #expect(slots.allSatisfy { $0.battery == 77 && $0.intervalSeconds == 1 && $0.steps == nil })
        #expect(rows.take().slots.isEmpty)
    }

    @Test func twoValuesInOneSecondShareItOrTakeTheNext() {
        var rows = SensorRows(profiles: [.heartRate, .pulseOximeter], timeZone: nil)
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 100, measurement: hr(61, contact: true)))
        let plx = PLXContinuousMeasurement(normal: SpO2PulseRate(spo2: .number(mantissa: 97, exponent: 0), pulseRate: .number(mantissa: 60, exponent: 0)))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 600, measurement: .plxContinuous(plx)))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 900, measurement: hr(63, contact: true)))
        let (slots, _) = rows.take()
        // The oximeter's value shares the strap's second; its pulse rate is not the slot's rate (the
        // device has a Heart Rate Measurement); the second strap value takes the next second.
        #expect(slots.count == 2)
        #expect(slots[0].start == 1_780_000_000 && slots[0].bpm == 61 && slots[0].spo2 == 97 && slots[0].spo2Quality == 3)
        #expect(slots[1].start == 1_780_000_001 && slots[1].bpm == 63)
        // Values crowding one second more than 2 s behind are dropped and counted, never merged.
        var crowded = SensorRows(profiles: [.heartRate], timeZone: nil)
        for i in 0..<5 { crowded.add(SensorSample(receivedAtMilliseconds: t0 + Int64(i), measurement: hr(60 + i, contact: true))) }
        #expect(crowded.take().slots.map(\.bpm) == [60, 61, 62])
        #expect(crowded.dropped == 2)
    }

    @Test func rrIntervalsChainIntoBeatsAndALostNotificationIsAGap() {
        var rows = SensorRows(profiles: [.heartRate], timeZone: nil)
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 1_000, measurement: hr(60, contact: true, rr: [1000])))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 2_050, measurement: hr(60, contact: true, rr: [500, 500])))
        // 5 s later: the notifications between were lost.
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 7_000, measurement: hr(60, contact: true, rr: [1000])))
        let (_, beats) = rows.take()
        #expect(beats.map(\.timeMs) == [t0 + 1_000, t0 + 1_500, t0 + 2_000, t0 + 7_000])
        #expect(beats.map(\.rrMs) == [nil, 500, 500, nil])
        let hrv = HRVAnalysis.analyze(beats, filter: .none)
        #expect(hrv.kept == 2)
    }

    @Test func anOximetersStatusSetsQualityAndWearing() {
        #expect(SensorRows.quality(nil, nil) == 3)
        #expect(SensorRows.quality([.validatedData], []) == 4)
        #expect(SensorRows.quality([.earlyEstimatedData], nil) == 2)
        #expect(SensorRows.quality([.validatedData, .questionableMeasurementDetected], nil) == 1)
        #expect(SensorRows.quality([.validatedData], [.lowPerfusionDetected]) == 1)
        #expect(SensorRows.quality([.dataForDemonstration], nil) == 0)
        #expect(SensorRows.quality(nil, [.sensorDisconnected]) == 0)

        var rows = SensorRows(profiles: [.pulseOximeter], timeZone: nil)
        let off = PLXContinuousMeasurement(normal: SpO2PulseRate(spo2: .notANumber, pulseRate: .notANumber),
                                           deviceAndSensorStatus: .sensorUnconnectedToUser)
        rows.add(SensorSample(receivedAtMilliseconds: t0, measurement: .plxContinuous(off)))
        let slot = rows.take().slots.first
        #expect(slot?.spo2 == nil && slot?.bpm == nil && slot?.wearing == 0)
    }

    @Test func temperaturesGoToSkinOrCoreAndStoredValuesToTheirOwnTime() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        var rows = SensorRows(profiles: [.thermometer], timeZone: zone)
        rows.add(SensorSample(receivedAtMilliseconds: t0, measurement: .temperature(TemperatureMeasurement(value: .number(mantissa: 988, exponent: -1),
                                                                                                        fahrenheit: true, type: .mouth))))
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 1_000, measurement: .temperature(TemperatureMeasurement(value: .number(mantissa: 331, exponent: -1),
                                                                                                                type: .finger))))
        // Taken an hour before it arrived (22:26:40 local, 20:26:40Z): from the thermometer's storage.
        let stamp = SIGDateTime(year: 2026, month: 5, day: 28, hours: 21, minutes: 26, seconds: 40)
        rows.add(SensorSample(receivedAtMilliseconds: t0 + 2_000, measurement: .temperature(TemperatureMeasurement(value: .number(mantissa: 366, exponent: -1),
                                                                                                                timestamp: stamp))))
        let slots = rows.take().slots
        #expect(slots.map(\.start) == [1_780_000_000 - 3_600, 1_780_000_000, 1_780_000_001])
        #expect(slots[0].coreTempC == 36.6)
        #expect(abs((slots[1].coreTempC ?? 0) - 37.111) < 0.001 && slots[1].skinTempC == nil)
        #expect(slots[2].skinTempC == 33.1 && slots[2].coreTempC == nil)
        // A time stamp at the arrival (a live reading) keeps the arrival.
        #expect(rows.storedTime(SIGDateTime(year: 2026, month: 5, day: 28, hours: 22, minutes: 26, seconds: 40), arrivedAt: t0) == t0)
    }

    /// A strap's day through the pipeline: contact lost is not worn (its minutes are not counted),
    /// and what a strap cannot measure is null in the stored summary.
    @Test func aStreamThroughThePipelineSummarisesItsDay() throws {
        let path = Bundled.temporaryDatabase()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try Store(path: path)
        let pipeline = IngestPipeline(store: store, given: .init(timeZone: TimeZone(identifier: "UTC"), age: 40))
        let written = Mutex<[SensorStream.Progress]>([])
        let info = StandardSensorInfo(manufacturer: "Acme", model: "H1", serial: "STRAP01", profiles: [.heartRate])
        var settings = SensorStream.Settings()
        settings.recomputeSeconds = 600
        let stream = try SensorStream(pipeline: pipeline, device: "STRAP01", sensor: info, settings: settings, onProgress: { progress in written.withLock { $0.append(progress) } })
        // 20 minutes at 60 bpm with contact, then 10 minutes at 150 bpm reported without contact,
        // from a whole minute on (20:26:00Z).
        let start = t0 - 40_000
        for s in 0..<1_800 {
            let contact = s < 1_200
            stream.add(SensorSample(receivedAtMilliseconds: start + Int64(s) * 1_000 + 200,
                                    measurement: hr(contact ? 60 : 150, contact: contact, rr: contact ? [1000] : [])))
        }
        stream.finish()
        _ = try pipeline.recomputePending(device: "STRAP01")
        #expect(stream.failure == nil)
        let progress = written.withLock { $0 }
        #expect(progress.last?.totalStored == 1_800)
        #expect(progress.count > 300)  // written every 5 s, not once at the end
        #expect(try store.devices().first?.sensor == "Acme H1")
        let stored = try #require(try store.dailySummary(device: "STRAP01", localDate: "2026-05-28", kind: "daily"))
        let day = try JSONDecoder().decode(DailySummary.self, from: stored.json)
        #expect(day.bpm.averageBPM == 60)
        #expect(day.bpm.maxDayBPM == 60)
        #expect(day.bpm.durationRestZone == 20)
        #expect(day.bpm.dailyRestingBPM == nil)  // 20 minutes worn: no 30-minute window
        #expect(day.steps.stepCount == nil && day.breath.averageBreath == nil && day.spo2.averageSpo2 == nil)
        #expect(day.coverage.wornMinutes == 20)
        #expect(try store.beats(device: "STRAP01", fromMs: 0, toMs: .max / 2).count == 1_200)
    }
}

