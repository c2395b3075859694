extension Duration {
    /// Whole milliseconds, rounded up so that a wait given to `poll(2)` never ends early (and a
    /// positive duration never becomes a busy 0), saturating at `Int32.max`; 0 or less for none.
    package var milliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(min(ms, Int64(Int32.max)))
    }

    /// The duration in seconds, for printing and for APIs that take a `Double`.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
