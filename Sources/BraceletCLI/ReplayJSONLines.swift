import BraceletCapture
import BraceletDecoder
import BraceletProtocol

/// Writes the records of a replayed capture in one output format, batch by batch as the capture is
/// read.
protocol ReplayRecordWriter: AnyObject {
    /// Writes a batch of slots of a metrics file.
    func slots(_ batch: MetricsColumns, header: FileHeader)
    /// Writes a batch of beats of a beats file.
    func beats(_ batch: [Beat], header: FileHeader)
    /// Writes one live heart-rate notification.
    func heartRate(_ hr: CapturedHeartRate)
    /// Writes what comes after the last record and flushes; throws when the output failed.
    func finish() throws
}

/// Formats replay records as JSON Lines straight into one large output block through a raw pointer:
/// a capture of a month has close to a million records, and a `String` or an array append per value
/// would make replay slower than reading the file. The text is exactly what the key list in
/// ``ReplayWriter/slotKeys`` and `description` of each value give.
///
/// There are two blocks: a full one is written by a ``BlockWriter`` while records go into the other.
final class ReplayJSONLines: ReplayRecordWriter {
    private let output: ReplayOutput
    /// The block being filled; records are written at `block + used` and the block goes out when full.
    private var block: UnsafeMutablePointer<UInt8>
    /// The other block: being written, or free.
    private var spare: UnsafeMutablePointer<UInt8>
    private let writer = BlockWriter()
    private static let blockSize = 1 << 20
    private var used = 0
    /// Room every line gets before it is written: the longest slot line with every field out of
    /// range, plus the device part.
    private var lineRoom = 1024
    /// `","device":"SERIAL","model":"v2"` of the current device, reused while the device stays the same.
    private var device: [UInt8] = []
    private var deviceKey: (serial: String, model: DeviceModel)?
    /// The date of the last record written: records of one day share it.
    private var dates = DatePrefix()
    /// The beat lines' own state: day, device part, digit tables.
    private var beatLines = ReplayBeatLines()

    init(output: ReplayOutput) {
        self.output = output
        block = .allocate(capacity: Self.blockSize)
        spare = .allocate(capacity: Self.blockSize)
    }

    deinit {
        writer.finish()
        block.deallocate()
        spare.deallocate()
        dates.text.deallocate()
    }

    func finish() throws {
        flush(used)
        writer.finish()
        try output.finish()
    }

    /// Sends the block up to `count` bytes to the output and goes on in the other block.
    private func flush(_ count: Int) {
        if count > 0, let target = output.target() {
            writer.write(UnsafeRawBufferPointer(start: block, count: count), to: target)
            swap(&block, &spare)
        }
        used = 0
    }

    /// A position with room for one more line of at most `lineRoom` bytes.
    @inline(__always)
    private func room(_ p: UnsafeMutablePointer<UInt8>, _ lineRoom: Int) -> UnsafeMutablePointer<UInt8> {
        if p - block + lineRoom <= Self.blockSize { return p }
        flush(p - block)
        return block
    }

    private func useDevice(_ serial: String, _ model: DeviceModel) {
        if let key = deviceKey, key.serial == serial, key.model == model { return }
        deviceKey = (serial, model)
        var text: [UInt8] = []
        CanonicalJSON.appendLiteral("\",\"device\":", to: &text)
        CanonicalJSON.appendString(serial, to: &text)
        CanonicalJSON.appendLiteral(",\"model\":", to: &text)
        CanonicalJSON.appendString("\(model)", to: &text)
        device = text
        lineRoom = 1024 + device.count
        beatLines.useDevice(text)
    }

    func slots(_ batch: MetricsColumns, header: FileHeader) {
        useDevice(header.serial, header.model)
        var p = block + used
        var dates = self.dates
        let lineRoom = self.lineRoom
        precondition(batch.count <= batch.capacity, "a batch of \(batch.count) records in columns for \(batch.capacity)")
        device.withUnsafeBufferPointer { device in
            for i in 0..<batch.count {
                p = room(p, lineRoom)
                p = slotLine(batch, i, device: device, dates: &dates, p)
            }
        }
        self.dates = dates
        used = p - block
    }

    /// Record `i` of `c` (below its count) as a line, straight from the raw columns: a sentinel is
    /// `null`, a hundredths column is written as the `description` of its value (``TextBytes/writeHundredths(_:to:)``),
    /// exactly the text of the record's ``Slot`` (the bundled captures' JSON Lines are compared).
    private func slotLine(_ c: MetricsColumns, _ i: Int, device: UnsafeBufferPointer<UInt8>, dates: inout DatePrefix,
                          _ start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var p = put("{\"kind\":\"slot\",\"t\":\"", start)
        let (day, second) = (c.firstStart + Int64(i) * Int64(c.intervalSeconds)).floorDivided(by: 86_400)
        p = dates.write(day, p)
        p = time(Int(second), p)
        p.pointee = 0x5A
        p = copy(device, p + 1)
        p = put(",\"interval_s\":", p)
        p = TextBytes.write(Int64(c.intervalSeconds), to: p)
        let v2 = c.model == .v2
        p = integer(c.bpm[i], put(",\"bpm\":", p))
        p = integer(c.bpmQ[i], put(",\"bpm_q\":", p))
        p = hundredths(c.breath[i], put(",\"breath\":", p))
        p = integer(c.breathQ[i], put(",\"breath_q\":", p))
        p = integer(c.steps[i], put(",\"steps\":", p))
        p = integer(c.activity[i], put(",\"activity\":", p))
        p = hundredths(c.speed[i], put(",\"speed\":", p))
        p = integer(c.energy[i], put(",\"energy_cal\":", p))
        p = integer(c.activeEnergy[i], put(",\"active_cal\":", p))
        p = hundredths(c.skinTemp[i], put(",\"skin_temp_c\":", p))
        p = hundredths(v2 ? c.coreTemp[i] : 0xFFFF, put(",\"core_temp_c\":", p))
        p = integer(v2 ? c.spo2[i] : 0xFF, put(",\"spo2\":", p))
        p = integer(v2 ? c.spo2Q[i] : 0xFF, put(",\"spo2_q\":", p))
        p = hundredths(v2 ? c.eda[i] : 0xFFFF, put(",\"eda_us\":", p))
        p = integer(c.stage[i], put(",\"sleep_stage\":", p))
        p = integer(c.wearing[i], put(",\"wearing\":", p))
        p = integer(c.battery[i], put(",\"battery\":", p))
        let outOfRange = c.uncheckedOutOfRange(i)
        if !outOfRange.isEmpty {
            var names: [UInt8] = []
            CanonicalJSON.appendLiteral(",\"out_of_range\":[", to: &names)
            for (i, name) in outOfRange.names.enumerated() {
                if i > 0 { CanonicalJSON.appendLiteral(",", to: &names) }
                CanonicalJSON.appendString(name, to: &names)
            }
            CanonicalJSON.appendLiteral("]", to: &names)
            names.withUnsafeBufferPointer { p = copy($0, p) }
        }
        p[0] = 0x7D; p[1] = 0x0A
        return p + 2
    }

    /// An integer column's value, `null` for its sentinel (the type's largest value).
    @inline(__always)
    private func integer<Raw: FixedWidthInteger & UnsignedInteger>(_ raw: Raw, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        raw == Raw.max ? put("null", p) : TextBytes.write(UInt64(raw), to: p)
    }

    /// A hundredths column's value as its `Double`'s `description`, `null` for its sentinel 0xFFFF.
    @inline(__always)
    private func hundredths(_ raw: UInt16, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        raw == 0xFFFF ? put("null", p) : TextBytes.writeHundredths(UInt64(raw), to: p)
    }

    func beats(_ batch: [Beat], header: FileHeader) {
        useDevice(header.serial, header.model)
        let lineRoom = max(self.lineRoom, beatLines.lineRoom)
        var dates = self.dates
        var p = block + used
        batch.withUnsafeBufferPointer { beats in
            var next = 0
            while next < beats.count {
                let (end, written) = beatLines.write(UnsafeBufferPointer(rebasing: beats[next...]), dates: &dates, from: p,
                                                     limit: block + Self.blockSize - lineRoom)
                next += written
                p = end
                if next < beats.count {
                    precondition(written > 0 || p != block, "a beat line does not fit an empty block")
                    flush(p - block)
                    p = block
                }
            }
        }
        self.dates = dates
        used = p - block
    }

    func heartRate(_ hr: CapturedHeartRate) {
        var line: [UInt8] = []
        HeartRateSampleLine.append(hr.measurement, unixMilliseconds: hr.timestampMicros / 1000, to: &line)
        var p = room(block + used, line.count)
        line.withUnsafeBufferPointer { p = copy($0, p) }
        used = p - block
    }

    // MARK: - Pieces of a line

    /// A key or punctuation, pre-escaped (see ``BraceletDecoder/CanonicalJSON/writeLiteral(_:to:)``).
    @inline(__always)
    private func put(_ text: StaticString, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        CanonicalJSON.writeLiteral(text, to: p)
    }

    @inline(__always)
    private func copy(_ bytes: UnsafeBufferPointer<UInt8>, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if let base = bytes.baseAddress { p.update(from: base, count: bytes.count) }
        return p + bytes.count
    }

    /// `HH:MM:SS` of a second of the day.
    @inline(__always)
    private func time(_ second: Int, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        two(second / 3600, p)
        p[2] = 0x3A
        two(second / 60 % 60, p + 3)
        p[5] = 0x3A
        two(second % 60, p + 6)
        return p + 8
    }

    @inline(__always)
    private func two(_ v: Int, _ p: UnsafeMutablePointer<UInt8>) {
        TextBytes.writeTwoDigits(v, to: p)
    }
}

/// `{"kind":"rr","t":"YYYY-MM-DDT` of one day, the start of every beat line of that day, in 32 bytes
/// so that it is copied whole.
struct RRLineHead {
    /// Bytes of text.
    static let length = 29
    /// Days since 1970 of the text; none yet at first.
    var day = Int64.min
    /// The text, then 3 bytes of padding.
    var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    /// The head of `day`, its date as `dates` writes it.
    init(day: Int64, dates: inout DatePrefix) {
        self.day = day
        let prefix = Array(#"{"kind":"rr","t":""#.utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            base.update(from: prefix, count: prefix.count)
            _ = dates.write(day, base + prefix.count)
        }
        withUnsafeMutableBytes(of: &text) { $0.copyBytes(from: bytes) }
    }
}

/// `YYYY-MM-DDT` of one day, kept while records stay on that day.
struct DatePrefix {
    /// The 11 bytes of the text.
    let text = UnsafeMutablePointer<UInt8>.allocate(capacity: 11)
    /// Days since 1970 of the text; none yet at first.
    var day = Int64.min

    /// Writes `YYYY-MM-DDT` of `day` (days since 1970) at `p`, exactly as ``UTCTime`` prints the date.
    @inline(__always)
    mutating func write(_ day: Int64, _ p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if day != self.day {
            var date: [UInt8] = []
            UTCTime.appendISO8601(unixSeconds: day * 86_400, to: &date)
            for i in 0..<11 { text[i] = date[i] }
            self.day = day
        }
        p.update(from: text, count: 11)
        return p + 11
    }
}
