/// Levenshtein edit distance, case-insensitive: the one measure behind every "did you mean" (ROOK
/// keys, time zone names), so that each suggests the same way.
package enum EditDistance {
    /// The edit distance of `a` and `b`, ignoring case.
    package static func between(_ a: String, _ b: String) -> Int {
        distance(Array(a.lowercased()), Array(b.lowercased()))
    }

    /// The first of `known` at the smallest edit distance from `key`, `nil` when `known` is empty.
    /// Each distance is computed once, and a candidate whose length alone puts it at least as far as
    /// the best so far is skipped (the distance is never below the length difference): a long list
    /// costs one pass per key, not two per comparison.
    package static func nearest(to key: String, in known: [String]) -> String? {
        nearest(to: key, in: known, limit: 1).first?.name
    }

    /// Up to `limit` of `known` nearest to `key` (closest first, ties in the order of `known`), each
    /// with its distance; those farther than `maximum` are left out.
    package static func nearest(to key: String, in known: [String], limit: Int, maximum: Int = .max) -> [(name: String, distance: Int)] {
        guard limit > 0 else { return [] }
        let x = Array(key.lowercased())
        var best: [(name: String, distance: Int)] = []
        for name in known {
            let y = Array(name.lowercased())
            let worst = best.count == limit ? best[limit - 1].distance : (maximum == .max ? .max : maximum + 1)
            if abs(x.count - y.count) >= worst { continue }
            let d = distance(x, y)
            guard d < worst else { continue }
            let at = best.firstIndex { $0.distance > d } ?? best.count
            best.insert((name, d), at: at)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// Levenshtein edit distance of two character sequences, two rows reused.
    private static func distance(_ x: [Character], _ y: [Character]) -> Int {
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var previous = Array(0...y.count)
        var current = previous
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
