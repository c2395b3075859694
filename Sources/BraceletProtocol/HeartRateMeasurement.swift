/// A standard Heart Rate Measurement (characteristic 0x2A37), as a chest strap or the bracelet
/// notifies it.
///
/// Flags byte: bit 0 value format (0 = UInt8, 1 = UInt16), bits 1-2 sensor contact (bit 2 =
/// supported, bit 1 = detected), bit 3 energy expended present (UInt16, kJ), bit 4 RR intervals
/// present (UInt16 each, 1/1024 s, as many as fit).
public struct HeartRateMeasurement: Sendable, Hashable {
    /// Heart rate, beats per minute.
    public var bpm: Int
    /// Skin contact: `nil` when the sensor does not report it.
    public var contactDetected: Bool?
    /// Energy expended since the last reset, kJ, when present.
    public var energyExpendedKJ: Int?
    /// RR intervals in 1/1024 s, oldest first.
    public var rrIntervals1024: [UInt16]

    /// RR intervals in milliseconds, rounded.
    public var rrMilliseconds: [Int] { rrIntervals1024.map { Int((Double($0) * 1000 / 1024).rounded()) } }

    /// Creates a measurement.
    public init(bpm: Int, contactDetected: Bool?, energyExpendedKJ: Int?, rrIntervals1024: [UInt16]) {
        self.bpm = bpm
        self.contactDetected = contactDetected
        self.energyExpendedKJ = energyExpendedKJ
        self.rrIntervals1024 = rrIntervals1024
    }

    /// Decodes a notified value.
    public init(value: [UInt8]) throws(FrameError) {
        guard let flags = value.first else { throw .empty }
        var index = 1
        func u16() throws(FrameError) -> UInt16 {
            guard let v: UInt16 = value.readLittleEndian(at: index) else {
                throw .wrongLength(code: flags, expected: index + 2, actual: value.count)
            }
            index += 2
            return v
        }
        if flags & 0x01 != 0 {
            bpm = Int(try u16())
        } else {
            guard value.count > 1 else { throw .wrongLength(code: flags, expected: 2, actual: value.count) }
            bpm = Int(value[1])
            index = 2
        }
        contactDetected = flags & 0x04 != 0 ? flags & 0x02 != 0 : nil
        energyExpendedKJ = flags & 0x08 != 0 ? Int(try u16()) : nil
        var rr: [UInt16] = []
        if flags & 0x10 != 0 {
            guard (value.count - index) % 2 == 0 else {
                throw .wrongLength(code: flags, expected: value.count + 1, actual: value.count)
            }
            while index < value.count { rr.append(try u16()) }
        }
        rrIntervals1024 = rr
    }

    /// The notified value, using the UInt8 format when the rate fits.
    public func encode() -> [UInt8] {
        var flags: UInt8 = bpm > 255 ? 0x01 : 0
        if let contactDetected { flags |= 0x04 | (contactDetected ? 0x02 : 0) }
        if energyExpendedKJ != nil { flags |= 0x08 }
        if !rrIntervals1024.isEmpty { flags |= 0x10 }
        var out: [UInt8] = [flags]
        if bpm > 255 { out.appendLittleEndian(UInt16(clamping: bpm)) } else { out.append(UInt8(clamping: bpm)) }
        if let energyExpendedKJ { out.appendLittleEndian(UInt16(clamping: energyExpendedKJ)) }
        for rr in rrIntervals1024 { out.appendLittleEndian(rr) }
        return out
    }
}
