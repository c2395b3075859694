/// Converts btsnoop timestamps (microseconds since midnight, 1 January of year 0, as the btsnoop
/// format counts them) to and from Unix time in microseconds.
public enum BtsnoopTime {
    /// The btsnoop timestamp of 1970-01-01T00:00:00Z: `0x00E03AB44A676000` (2000-01-01 in btsnoop
    /// time) minus 946 684 800 s. Wireshark uses the same constant.
    public static let unixEpoch: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Unix microseconds for a btsnoop timestamp. Wraps instead of trapping on absurd values read
    /// from a damaged file.
    public static func unixMicros(fromBtsnoop timestamp: Int64) -> Int64 { timestamp &- unixEpoch }

    /// The btsnoop timestamp for Unix microseconds. Wraps instead of trapping on absurd input.
    public static func btsnoop(fromUnixMicros unixMicros: Int64) -> Int64 { unixMicros &+ unixEpoch }
}
