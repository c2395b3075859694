/// Small helpers for the report's inline SVG: escaping, number formatting, and curves that break
/// at gaps instead of drawing a line through missing data.
enum SVG {
    /// Text escaped for HTML/SVG content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// A coordinate with one decimal.
    static func f(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The `d` of one path through `points` (x, y) that starts a new sub-path (`M`) wherever
    /// `breaks` says consecutive points are not adjacent, so a gap stays empty. A lone point is
    /// drawn as a short dash so it stays visible.
    static func path(_ points: [(x: Double, y: Double, gapBefore: Bool)]) -> String {
        var d = ""
        for (i, p) in points.enumerated() {
            let startsRun = i == 0 || p.gapBefore
            let endsRun = i == points.count - 1 || points[i + 1].gapBefore
            if startsRun {
                d += "M\(f(p.x)) \(f(p.y))"
                if endsRun { d += "h1.5" }
            } else {
                d += "L\(f(p.x)) \(f(p.y))"
            }
        }
        return d
    }
}

/// A value over time in one chart: its samples (start time, value), the slot length that makes
/// two samples adjacent.
struct Series {
    var name: String
    var cssClass: String
    var samples: [(time: Int64, value: Double)]
    var slotSeconds: Int

    /// The samples with a flag on each that starts a new run after missing data.
    func points(x: (Int64) -> Double, y: (Double) -> Double) -> [(x: Double, y: Double, gapBefore: Bool)] {
        var out: [(x: Double, y: Double, gapBefore: Bool)] = []
        var previous: Int64?
        for s in samples.sorted(by: { $0.time < $1.time }) {
            let gap = previous.map { s.time - $0 > Int64(slotSeconds) } ?? true
            out.append((x(s.time), y(s.value), gap))
            previous = s.time
        }
        return out
    }
}
