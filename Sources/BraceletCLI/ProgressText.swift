import BraceletTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The words and the bar of a progress line.
extension ProgressReporter {

    /// `, 12 s` once a phase has lasted a second or more: a wait still shows that time passes.
    static func waited(_ seconds: Double) -> String { seconds >= 1 ? ", \(Int(seconds)) s" : "" }

    /// `46/112 MB (41 %), 9.8 MB/s, 0:00:07 left`: done of total, the rate since the phase began
    /// (once a second has passed) and the time left at that rate.
    static func counted(_ done: Int, _ total: Int, _ elapsed: Double, show: (Int) -> String, unit: String, rateUnit: String,
                        rateShow: (Double) -> String) -> String {
        var text = "\(show(done))/\(show(total)) \(unit)"
        if total > 0 { text += " (\(min(100, done * 100 / total)) %)" }
        if elapsed >= 1, done > 0 {
            let rate = Double(done) / elapsed
            text += ", \(rateShow(rate)) \(rateUnit), " + clockTime(Double(max(0, total - done)) / rate) + " left"
        }
        return text
    }

    /// `backlog 3/12 files, 45.2/118.0 MB (38 %), 2.10 MB/s, 0:00:56 left; beats 4.1/8.0 MB`.
    static func backlogLine(_ p: BacklogProgress) -> String {
        var text = "backlog \(p.filesDone)/\(p.filesTotal.map(String.init) ?? "?") files, "
        text += "\(megabytes(p.bytesDone))/\(p.bytesTotal.map(megabytes) ?? "?") MB"
        if let total = p.bytesTotal, total > 0 { text += " (\(min(100, p.bytesDone * 100 / total)) %)" }
        text += ", " + (p.rate.map { megabytes(Int($0)) + " MB/s" } ?? "rate ?")
        text += ", " + (p.secondsLeft.map { clockTime($0) + " left" } ?? "time left ?")
        if let c = p.current { text += "; \(c.kind) \(megabytes(c.received))/\(megabytes(c.size)) MB" }
        return text
    }

    /// A rate: one decimal under 10, whole above.
    static func rate(_ value: Double) -> String { value < 10 ? String(format: "%.1f", value) : String(Int(value)) }

    /// Bytes as MB with one decimal.
    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `H:MM:SS`, rounded up.
    static func clockTime(_ seconds: Double) -> String {
        let s = seconds.isFinite ? Int(min(seconds, 359_999).rounded(.up)) : 0
        let mm = (s / 60) % 60, ss = s % 60
        return "\(s / 3600):\(mm < 10 ? "0" : "")\(mm):\(ss < 10 ? "0" : "")\(ss)"
    }

    /// `[#########-----------]` for `fraction` of 20 cells.
    static func bar(_ fraction: Double) -> String {
        let filled = Int((min(1, max(0, fraction)) * 20).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "]"
    }

    /// The width of the terminal on standard error (80 when it does not say).
    static func terminalColumns() -> Int {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 20 ? Int(size.ws_col) : 80
    }
}
