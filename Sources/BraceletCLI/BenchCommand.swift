import ArgumentParser
import BraceletCapture
import BraceletDecoder
import BraceletProtocol
import Foundation

/// `bracelet bench`: decoder throughput against the plain memory-read rate of the same buffer.
struct BenchCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure decoder throughput against this machine's memory-read rate.",
        discussion: """
            Fills a buffer with metrics records of each model, then times, in the same run, (1) a plain \
            read of every byte of the buffer and (2) decoding every record into columns. Prints slots/s, \
            GB/s and the ratio decode/read. Build in release for meaningful numbers: \
            `swift build -c release && .build/release/bracelet bench`.
            """
    )

    @Option(name: .customLong("size-mib"), help: "Buffer size per model in MiB.")
    var sizeMiB: Int = 256

    @Option(help: "Model to measure.")
    var model: BenchModel = .both

    @Option(help: "Timed repetitions; the best is reported.")
    var repetitions: Int = 5

    @Option(help: "Records decoded per batch (the column buffer stays in cache).")
    var batch: Int = 512

    @Option(help: "Capture whose replay throughput to measure (default: the bundled v2-three-days.btsnoop of a checkout's captures/ or the package's /usr/share/bracelet/captures/).")
    var capture: String?

    @Flag(help: "Measure only the replay throughput of the capture.")
    var replayOnly = false

    func validate() throws {
        guard sizeMiB >= 1, sizeMiB <= 8192 else { throw ValidationError("--size-mib must be 1...8192") }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    }

    @OptionGroup var log: LogOptions

    func run() throws {
        if !replayOnly { try benchDecoder() }
        try benchReplay()
    }

    func benchReplay() throws {
        let bundled = ["captures/v2-three-days.btsnoop", "/usr/share/bracelet/captures/v2-three-days.btsnoop"]
        let path = capture ?? bundled.first { FileManager.default.fileExists(atPath: $0) } ?? bundled[0]
        guard let bytes = try? CaptureFile.read(path: path) else {
            if capture != nil { throw CLIError("cannot read \(path)") }
            Log.warning("replay: skipped (no \(path) here; pass --capture FILE)")
            return
        }
        // One untimed replay checks that the capture replays at all; failures are not timed.
        let slots: Int
        do { slots = try ReplayedCapture.load(bytes: bytes).metricsFiles.reduce(0) { $0 + $1.slots.count } } catch {
            throw CLIError("\(path) does not replay: \(error)")
        }
        var best = Double.infinity
        for _ in 0..<repetitions {
            best = min(best, time { UInt64((try? ReplayedCapture.load(bytes: bytes))?.metricsFiles.count ?? 0) }.seconds)
        }
        let rate = Double(bytes.count) / best
        print("replay \(path): \(bytes.count) bytes, \(slots) slots, best of \(repetitions)")
        print("  replay      : \(String((rate / 1e4).rounded() / 100)) MB/s of btsnoop (read, reassemble, recover transfers, decode)")
    }

    func benchDecoder() throws {
        let models = model.models
        #if DEBUG
        Log.info("note: this is a debug build; numbers are far below a release build's")
        #endif
        for model in models {
            let buffer = try BenchmarkBuffer(model: model, bytes: sizeMiB << 20)
            let columns = MetricsColumns(capacity: batch)
            // Interleaved, so that both see the same machine load; the best of each is kept.
            var read = Timing(seconds: .infinity, checksum: 0), decode = read
            for _ in 0..<repetitions {
                let r = time { buffer.readEveryByte() }
                let d = time { buffer.decodeAll(into: columns) }
                if r.seconds < read.seconds { read = r }
                if d.seconds < decode.seconds { decode = d }
            }
            let bytes = Double(buffer.recordBytes)
            let readRate = bytes / read.seconds
            let decodeRate = bytes / decode.seconds
            let slots = Double(buffer.records) / decode.seconds
            print("\(model): \(buffer.records) records of \(buffer.recordSize) B (\(sizeMiB) MiB), best of \(repetitions)")
            print("  memory read : \(gb(readRate)) GB/s")
            print("  decode      : \(gb(decodeRate)) GB/s, \(Int(slots / 1e6)) M slots/s")
            print("  ratio       : \(Int((decodeRate / readRate * 100).rounded())) % of the memory-read rate (goal >= 80 %, docs/performance.md)")
            print("  checksums   : read \(read.checksum), decode \(decode.checksum)")
        }
    }

    struct Timing { var seconds: Double; var checksum: UInt64 }

    /// Runs `body` once and returns how long it took and what it returned (kept so the work is not
    /// optimised away).
    func time(_ body: () -> UInt64) -> Timing {
        var checksum: UInt64 = 0
        let elapsed = ContinuousClock().measure { checksum = body() }
        return Timing(seconds: elapsed.inSeconds, checksum: checksum)
    }

    func gb(_ rate: Double) -> String {
        let value = (rate / 1e9 * 100).rounded() / 100
        return String(value)
    }
}

/// The models `bracelet bench` measures.
enum BenchModel: String, ExpressibleByArgument, CaseIterable {
    case v1, v2, both

    /// The device models to measure, in order.
    var models: [DeviceModel] {
        switch self {
        case .v1: [.v1]
        case .v2: [.v2]
        case .both: [.v1, .v2]
        }
    }
}

/// A large buffer of plausible metrics records for the benchmark.
struct BenchmarkBuffer {
    let model: DeviceModel
    let recordSize: Int
    let records: Int
    let storage: UnsafeMutableRawBufferPointer
    var recordBytes: Int { records * recordSize }

    init(model: DeviceModel, bytes: Int) throws {
        self.model = model
        recordSize = MetricsRecordLayout.size(for: model)
        records = bytes / recordSize
        storage = .allocate(byteCount: records * recordSize, alignment: 64)
        // 4096 distinct records, tiled: a day-like mix of asleep, resting, walking and off-wrist slots.
        var pattern: [UInt8] = []
        let encoder = MetricsRecordEncoder(model: model)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for i in 0..<4096 {
            var s = Slot(start: Int64(i) * 60, intervalSeconds: 60)
            let worn = next(20) != 0
            s.wearing = worn ? 4 : 0
            s.battery = 90 - i / 100
            s.energyCal = 1000 + next(4000)
            if worn {
                s.bpm = 48 + next(120); s.bpmQuality = next(5)
                s.breath = Double(1200 + next(1500)) / 100; s.breathQuality = next(5)
                s.activity = [7, 7, 2, 4, 0][next(5)]; s.steps = s.activity == 2 ? 90 + next(30) : 0
                s.speed = Double(next(300)) / 100; s.skinTempC = Double(3200 + next(350)) / 100
                s.activeCal = next(1000); s.sleepStage = 1 + next(4)
                if model == .v2 {
                    s.spo2 = 93 + next(7); s.spo2Quality = next(5)
                    s.coreTempC = Double(3620 + next(120)) / 100; s.edaMicrosiemens = Double(next(900)) / 100
                }
            }
            try encoder.append(s, to: &pattern)
        }
        var offset = 0
        pattern.withUnsafeBytes { src in
            while offset < storage.count {
                let n = min(src.count, storage.count - offset)
                UnsafeMutableRawBufferPointer(rebasing: storage[offset..<(offset + n)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<n]))
                offset += n
            }
        }
    }

    /// Reads every byte (as 64-bit words, four accumulators) and returns their wrapping sum.
    func readEveryByte() -> UInt64 {
        let words = UnsafeRawBufferPointer(storage).bindMemory(to: UInt64.self)
        var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, d: UInt64 = 0
        var i = 0
        let n = words.count & ~3
        while i < n {
            a &+= words[i]; b &+= words[i + 1]; c &+= words[i + 2]; d &+= words[i + 3]
            i += 4
        }
        return a &+ b &+ c &+ d
    }

    /// Decodes every record batch by batch and returns a checksum of the decoded columns.
    func decodeAll(into columns: MetricsColumns) -> UInt64 {
        let decoder = MetricsDecoder(model: model, intervalSeconds: 60)
        var offset = 0
        var checksum: UInt64 = 0
        let raw = UnsafeRawBufferPointer(storage)
        while offset < raw.count {
            let used = decoder.decode(UnsafeRawBufferPointer(rebasing: raw[offset...]), firstStart: 0, into: columns)
            if used == 0 { break }
            offset += used
            checksum &+= UInt64(columns.count) &+ UInt64(columns.outOfRange(at: columns.count - 1).rawValue) &+ UInt64(columns.bpm(at: 0) ?? 0)
        }
        return checksum
    }
}
