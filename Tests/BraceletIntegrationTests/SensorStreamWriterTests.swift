import BraceletIngest
import BraceletProtocol
import BraceletStore
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// A sensor's stream writes on its own queue: the link's reader (``SensorStream/add(_:)``) never
/// waits for the database, and a write that fails keeps its rows, says so once, and is retried with
/// the next batch.
@Suite struct SensorStreamWriterTests {
    let t0: Int64 = 1_780_000_000_000  // 2026-05-28T20:26:40Z, ms

    @Test func aLockedDatabaseNeitherStallsTheReaderNorLosesNorRepeatsItsFailure() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // A write waits 2 s for another connection's lock before it fails.
        let store = try Store(path: path, busyTimeoutMilliseconds: 2_000)
        let pipeline = IngestPipeline(store: store, given: .init(timeZone: TimeZone(identifier: "UTC"), age: 40))
        let problems = Mutex<[SensorStream.Problem]>([])
        var settings = SensorStream.Settings()
        settings.flushSeconds = 10
        settings.recomputeSeconds = 15
        let info = StandardSensorInfo(manufacturer: "Acme", model: "H1", serial: "STRAP02", profiles: [.heartRate])
        let stream = try SensorStream(pipeline: pipeline, device: "STRAP02", sensor: info, settings: settings,
                                      onProblem: { problem in problems.withLock { $0.append(problem) } })
        func value(_ s: Int) -> SensorSample {
            SensorSample(receivedAtMilliseconds: t0 + Int64(s) * 1_000 + 200,
                         measurement: .heartRate(HeartRateMeasurement(bpm: 60 + s % 7, contactDetected: true, energyExpendedKJ: nil, rrIntervals1024: [])))
        }
        func said(_ matching: (SensorStream.Problem) -> Bool) -> Int { problems.withLock { $0.filter(matching).count } }
        func cannotStore(_ p: SensorStream.Problem) -> Bool { if case .cannotStore = p { true } else { false } }
        func storedAgain(_ p: SensorStream.Problem) -> Bool { if case .storedAgain = p { true } else { false } }

        // Another connection (another process, as far as SQLite knows) holds the write lock.
        let holder = try Store(path: path)
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            _ = try? holder.transaction { holding.signal(); release.wait() }
            released.signal()
        }.start()
        holding.wait()
        var slowest = Duration.zero
        let clock = ContinuousClock()
        for s in 0..<40 {
            slowest = max(slowest, clock.measure { stream.add(value(s)) })
        }
        // Three writes and two recomputes were due; each waits 2 s for the lock, on the stream's queue.
        let deadline = Date().addingTimeInterval(30)
        while said(cannotStore) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        release.signal()
        released.wait()
        for s in 40..<45 { stream.add(value(s)) }
        #expect(stream.finish() == nil)

        #expect(slowest < .seconds(1), "the reader waited \(slowest) for one value")
        #expect(said(cannotStore) == 1, "\(problems.withLock { $0 })")
        #expect(said(storedAgain) == 1, "\(problems.withLock { $0 })")
        // Nothing lost: every second with a value is a row, once.
        #expect(try store.slots(device: "STRAP02", from: 0, to: .max / 2).map(\.bpm) == (0..<45).map { 60 + $0 % 7 })
        #expect(stream.samplesStored == 45)
    }

    /// While writes keep failing, no more than the limit of values waits in memory: the oldest are
    /// given up, said once, and every value is either stored once or counted as given up.
    @Test func valuesBeyondTheWaitingLimitAreGivenUpAndCounted() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try Store(path: path, busyTimeoutMilliseconds: 300)
        let pipeline = IngestPipeline(store: store, given: .init(timeZone: TimeZone(identifier: "UTC"), age: 40))
        let problems = Mutex<[SensorStream.Problem]>([])
        var settings = SensorStream.Settings()
        settings.flushSeconds = 5
        settings.recomputeSeconds = 3_600
        settings.maxWaitingSeconds = 12
        let info = StandardSensorInfo(manufacturer: "Acme", model: "H1", serial: "STRAP03", profiles: [.heartRate])
        let stream = try SensorStream(pipeline: pipeline, device: "STRAP03", sensor: info, settings: settings,
                                      onProblem: { problem in problems.withLock { $0.append(problem) } })
        func value(_ s: Int) -> SensorSample {
            SensorSample(receivedAtMilliseconds: t0 + Int64(s) * 1_000 + 200,
                         measurement: .heartRate(HeartRateMeasurement(bpm: 60 + s % 7, contactDetected: true, energyExpendedKJ: nil, rrIntervals1024: [])))
        }
        func givenUp() -> [Int] { problems.withLock { $0.compactMap { if case let .givenUp(_, seconds, _) = $0 { seconds } else { nil } } } }

        let holder = try Store(path: path)
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            _ = try? holder.transaction { holding.signal(); release.wait() }
            released.signal()
        }.start()
        holding.wait()
        for s in 0..<40 { stream.add(value(s)) }
        _ = stream.failure  // every write handed over has failed by now
        release.signal()
        released.wait()
        for s in 40..<45 { stream.add(value(s)) }
        #expect(stream.finish() == nil)

        let said = givenUp()
        #expect(said.count == 1, "\(problems.withLock { $0 })")
        let stored = try store.slots(device: "STRAP03", from: 0, to: .max / 2).map(\.bpm)
        // The oldest were given up, the newest kept: the stored values are the last ones, in order.
        #expect(stored.count < 45 && stored == (45 - stored.count..<45).map { 60 + $0 % 7 }, "\(stored)")
        #expect(stored.count <= 12 + 5 + 5 + 1, "more than the limit waited: \(stored.count)")
        #expect(stream.samplesStored == stored.count)
        // Every value is stored once or counted as given up when the writes succeed again.
        let again = problems.withLock { $0.compactMap { if case let .storedAgain(_, _, givenUp) = $0 { givenUp } else { nil } } }
        #expect(again.count == 1 && again[0] + stored.count == 45, "\(problems.withLock { $0 })")
        #expect((said.first ?? 0) <= again.first ?? 0)
    }
}
