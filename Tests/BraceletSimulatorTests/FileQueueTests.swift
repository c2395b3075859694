import BraceletDecoder
import BraceletProtocol
import BraceletSimulator
import Testing

/// The simulated bracelet keeps spec §6.3/§6.5: files sealed before the size limit, several per
/// kind, oldest first, together exactly the history one unbounded file would hold.
@Suite("Simulated firmware: sealing before the size limit and the file queue")
struct FileQueueTests {
    static let end: Int64 = 1_780_000_000

    func firmware(_ model: DeviceModel, days: Int, maximumFileSize: Int = Int(Response.maximumFileSize),
                  windows: ((PhysiologyModel) -> [TimeSpan])? = nil) throws -> (SimulatedFirmware, Int64) {
        let history = try PhysiologyModel.simulatedHistory(model: model, serial: "QUEUE001", days: days, seed: 11, endingAt: Self.end)
        let beatWindows = windows?(history) ?? history.sleepPeriods.map { TimeSpan(start: $0.start, end: $0.end) }
        var firmware = SimulatedFirmware(history: history, beatWindows: beatWindows, maximumFileSize: maximumFileSize)
        let now = history.end + 60
        _ = firmware.handle(frame: Command.setTime(unixSeconds: UInt32(now), timeZoneOffsetMinutes: 60).encode(), now: now, mtu: 247)
        return (firmware, now)
    }

    func answer(_ firmware: inout SimulatedFirmware, _ command: Command, now: Int64) throws -> Response {
        try Response(frame: try #require(firmware.handle(frame: command.encode(), now: now, mtu: 247).response))
    }

    /// Every file of `kind` in queue order, read through file size and erase as a client would.
    func drain(_ kind: FileKind, _ firmware: inout SimulatedFirmware, now: Int64) throws -> [[UInt8]] {
        var files: [[UInt8]] = []
        while case let .fileSize(size, _) = try answer(&firmware, .fileSize(kind), now: now), size > 0 {
            files.append(try #require(firmware.queues[kind]?.first))
            guard case .erased(size, _) = try answer(&firmware, .eraseFile(kind, size: size), now: now) else {
                Issue.record("erase of \(size) bytes refused")
                break
            }
        }
        return files
    }

    func decodedSlots(_ files: [[UInt8]]) throws -> [Slot] {
        var slots: [Slot] = []
        for file in files {
            try file.withUnsafeBytes { raw in
                let summary = try FileDecoder.decodeMetrics(raw, columns: MetricsColumns(capacity: 512)) { c in
                    for i in 0..<c.count { slots.append(c.slot(at: i)) }
                }
                #expect(summary.faults.isEmpty)
            }
        }
        return slots
    }

    func decodedBeats(_ files: [[UInt8]]) throws -> [Beat] {
        var beats: [Beat] = []
        for file in files {
            try file.withUnsafeBytes { raw in
                let (decoded, summary) = try FileDecoder.decodeBeats(raw)
                #expect(summary.faults.isEmpty)
                beats += decoded
            }
        }
        return beats
    }

    @Test(arguments: [DeviceModel.v1, .v2])
    func aLowerLimitSplitsTheHistoryIntoConsecutiveFilesHoldingExactlyTheSameRecords(model: DeviceModel) throws {
        let limit = 20_000
        var (small, now) = try firmware(model, days: 2, maximumFileSize: limit)
        var (whole, _) = try firmware(model, days: 2)
        let metrics = try drain(.metrics, &small, now: now)
        let beats = try drain(.beats, &small, now: now)
        let oneMetrics = try drain(.metrics, &whole, now: now)
        let oneBeats = try drain(.beats, &whole, now: now)
        #expect(oneMetrics.count == 1)
        #expect(oneBeats.count == 1)

        // 2 days of 60 s slots = 2 880 records; (20 000 - 36) / record size per file.
        let perFile = (limit - 36) / MetricsRecordLayout.size(for: model)
        #expect(metrics.count == (2_880 + perFile - 1) / perFile)
        #expect(metrics.dropLast().allSatisfy { $0.count == 36 + perFile * MetricsRecordLayout.size(for: model) })
        #expect((metrics + beats).allSatisfy { $0.count <= limit })
        #expect(beats.count >= 2)

        // Oldest first, contiguous: each file starts where the previous one ended.
        let headers = try metrics.map { file in try file.withUnsafeBytes { try FileHeader(bytes: $0) } }
        for (a, b) in zip(headers, headers.dropFirst()) {
            #expect(b.baseTime == a.baseTime + Int64(a.recordCount * a.intervalSeconds))
        }
        #expect(try decodedSlots(metrics) == decodedSlots(oneMetrics))
        #expect(try decodedBeats(beats) == decodedBeats(oneBeats))
    }

    @Test func theSpecLimitHoldsAYearOfV1MetricsInOneFileAndSplitsV2() {
        // Spec §6.3 table: records per file at 16 777 215 bytes.
        #expect(FileHeader.recordCapacity(recordSize: 24) == 699_049)
        #expect(FileHeader.recordCapacity(recordSize: 32) == 524_286)
        #expect(FileHeader.recordCapacity(recordSize: 8) == 2_097_147)
        #expect(36 + 524_286 * 32 <= 16_777_215 && 36 + 524_287 * 32 > 16_777_215)
        // A test cap never raises the spec's.
        #expect(FileHeader.recordCapacity(recordSize: 8, limit: 1 << 30) == 2_097_147)
    }

    @Test func queueStatusCountsTheWaitingFilesAndEraseRemovesOnlyTheOldest() throws {
        var (firmware, now) = try firmware(.v2, days: 1, maximumFileSize: 10_000)
        guard case let .queueStatus(files, kib) = try answer(&firmware, .queueStatus(.metrics), now: now) else {
            Issue.record("no queue status answer")
            return
        }
        let queue = try #require(firmware.queues[.metrics])
        #expect(Int(files) == queue.count)
        #expect(queue.count == 5)  // 1 440 records, 311 per 10 000-byte file
        #expect(Int(kib) == (queue.reduce(0) { $0 + $1.count } + 1023) / 1024)
        // Queue status does not activate a file.
        #expect(try answer(&firmware, .readFile(.metrics, offset: 0, length: 100), now: now)
            == .error(command: 0x11, code: .fileNotActive, detail: 0))

        guard case let .fileSize(size, _) = try answer(&firmware, .fileSize(.metrics), now: now) else { Issue.record("no size"); return }
        #expect(Int(size) == queue[0].count)
        _ = try answer(&firmware, .eraseFile(.metrics, size: size), now: now)
        #expect(firmware.queues[.metrics].map { Array($0) } == Array(queue.dropFirst()))
        // After an erase nothing is active until the next size request, which offers the next file.
        #expect(try answer(&firmware, .readFile(.metrics, offset: 0, length: 100), now: now)
            == .error(command: 0x11, code: .fileNotActive, detail: 0))
        guard case let .fileSize(next, _) = try answer(&firmware, .fileSize(.metrics), now: now) else { Issue.record("no size"); return }
        #expect(Int(next) == queue[1].count)
        #expect(try answer(&firmware, .queueStatus(.logs), now: now) == .queueStatus(files: 0, kibibytes: 0))
    }

    @Test func aBeatsFileIsSealedBeforeABeatTimePassesTheU32MillisecondLimit() throws {
        // Beats only in the first and the last hour of 52 days: 51.9 days apart, more than the
        // 49.7 days a u32 of milliseconds reaches, so they cannot share one file.
        var (firmware, now) = try firmware(.v1, days: 52) { history in
            [TimeSpan(start: history.start, end: history.start + 3_600), TimeSpan(start: history.end - 3_600, end: history.end)]
        }
        let files = try drain(.beats, &firmware, now: now)
        #expect(files.count == 2)
        let beats = try decodedBeats(files)
        #expect(beats.first.map { $0.timeMs / 1000 - (now - 60 - 52 * 86_400) } ?? -1 < 3_600)
        #expect(beats.last.map { $0.timeMs / 1000 } ?? 0 > now - 60 - 3_600)
        // The decoded times are the model's, none clamped.
        #expect(beats == firmware.history.beats(from: firmware.history.start, to: firmware.history.start + 3_600).withFirstGap()
                        + firmware.history.beats(from: firmware.history.end - 3_600, to: firmware.history.end).withFirstGap())
    }
}

extension Array where Element == Beat {
    /// The first beat of a recording window follows a gap: no RR interval.
    func withFirstGap() -> [Beat] {
        var copy = self
        if !copy.isEmpty { copy[0].rrMs = nil }
        return copy
    }
}
