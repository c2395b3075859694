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
/// The problems a stream said, in order.
private final class Said: Sendable {
    let list = Mutex<[SensorStream.Problem]>([])
}

@Suite struct SensorStreamWriterTests {
    let t0: Int64 = 1_780_000_000_000  // 2026-05-28T20:26:40Z, ms

    /// A stream of a strap `serial` into a new database at `path` whose writes wait `busy` ms for
    /// a lock, with the problems it says collected.
    private func stream(_ serial: String, at path: String, busy: Int32, settings: SensorStream.Settings)
        throws -> (store: Store, stream: SensorStream, problems: Said) {
        let store = try Store(path: path, busyTimeoutMilliseconds: busy)
        let pipeline = IngestPipeline(store: store, given: .init(timeZone: TimeZone(identifier: "UTC"), age: 40))
        let problems = Said()
        let info = StandardSensorInfo(manufacturer: "Acme", model: "H1", serial: serial, profiles: [.heartRate])
        let stream = try SensorStream(pipeline: pipeline, device: serial, sensor: info, settings: settings,
                                      onProblem: { problem in problems.list.withLock { $0.append(problem) } })
        return (store, stream, problems)
    }

    /// The heart rate of second `s`.
    private func value(_ s: Int) -> SensorSample {
        SensorSample(receivedAtMilliseconds: t0 + Int64(s) * 1_000 + 200,
                     measurement: .heartRate(HeartRateMeasurement(bpm: 60 + s % 7, contactDetected: true, energyExpendedKJ: nil, rrIntervals1024: [])))
    }

    /// Another connection to `path` (another process, as far as SQLite knows) takes the write lock
    /// and holds it until the returned function is called (which waits until it is let go).
    private func holdLock(_ path: String) throws -> () -> Void {
        let holder = try Store(path: path)
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            _ = try? holder.transaction { holding.signal(); release.wait() }
            released.signal()
        }.start()
        holding.wait()
        return { release.signal(); released.wait() }
    }

    private func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).db").path
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func aLockedDatabaseNeitherStallsTheReaderNorLosesNorRepeatsItsFailure() throws {
        let path = temporaryDatabase()
        defer { remove(path) }
        var settings = SensorStream.Settings()
        settings.flushSeconds = 10
        settings.recomputeSeconds = 15
        // A write waits 2 s for another connection's lock before it fails.
        let (store, stream, problems) = try stream("STRAP02", at: path, busy: 2_000, settings: settings)
        func said(_ matching: (SensorStream.Problem) -> Bool) -> Int { problems.list.withLock { $0.filter(matching).count } }
        func cannotStore(_ p: SensorStream.Problem) -> Bool { if case .cannotStore = p { true } else { false } }
        func storedAgain(_ p: SensorStream.Problem) -> Bool { if case .storedAgain = p { true } else { false } }

        let letGo = try holdLock(path)
        var slowest = Duration.zero
        let clock = ContinuousClock()
        for s in 0..<40 {
            slowest = max(slowest, clock.measure { stream.add(value(s)) })
        }
        // Three writes and two recomputes were due; each waits 2 s for the lock, on the stream's queue.
        let deadline = Date().addingTimeInterval(30)
        while said(cannotStore) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        letGo()
        for s in 40..<45 { stream.add(value(s)) }
        #expect(stream.finish() == nil)

        #expect(slowest < .seconds(1), "the reader waited \(slowest) for one value")
        #expect(said(cannotStore) == 1, "\(problems.list.withLock { $0 })")
        #expect(said(storedAgain) == 1, "\(problems.list.withLock { $0 })")
        // Nothing lost: every second with a value is a row, once.
        #expect(try store.slots(device: "STRAP02", from: 0, to: .max / 2).map(\.bpm) == (0..<45).map { 60 + $0 % 7 })
        #expect(stream.samplesStored == 45)
    }

    /// While writes keep failing, no more than the limit of values waits in memory: the oldest are
    /// given up, said once, and every value is either stored once or counted as given up.
    @Test func valuesBeyondTheWaitingLimitAreGivenUpAndCounted() throws {
        let path = temporaryDatabase()
        defer { remove(path) }
        var settings = SensorStream.Settings()
        settings.flushSeconds = 5
        settings.recomputeSeconds = 3_600
        settings.maxWaitingSeconds = 12
        let (store, stream, problems) = try stream("STRAP03", at: path, busy: 300, settings: settings)

        let letGo = try holdLock(path)
        for s in 0..<40 { stream.add(value(s)) }
        _ = stream.failure  // every write handed over has failed by now
        letGo()
        for s in 40..<45 { stream.add(value(s)) }
        #expect(stream.finish() == nil)

        let said = problems.list.withLock { $0.compactMap { if case let .givenUp(_, seconds, _) = $0 { seconds } else { nil } } }
        #expect(said.count == 1, "\(problems.list.withLock { $0 })")
        let stored = try store.slots(device: "STRAP03", from: 0, to: .max / 2).map(\.bpm)
        // The oldest were given up, the newest kept: the stored values are the last ones, in order.
        #expect(stored.count < 45 && stored == (45 - stored.count..<45).map { 60 + $0 % 7 }, "\(stored)")
        #expect(stored.count <= 12 + 5 + 5 + 1, "more than the limit waited: \(stored.count)")
        #expect(stream.samplesStored == stored.count)
        // Every value is stored once or counted as given up when the writes succeed again.
        let again = problems.list.withLock { $0.compactMap { if case let .storedAgain(_, _, givenUp) = $0 { givenUp } else { nil } } }
        #expect(again.count == 1 && again[0] + stored.count == 45, "\(problems.list.withLock { $0 })")
        #expect((said.first ?? 0) <= again.first ?? 0)
    }
}
