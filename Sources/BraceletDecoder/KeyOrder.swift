import Foundation

/// The order in which canonical JSON writes an object's keys, remembered per key list.
///
/// Keys are compared as Foundation's JSONSerialization `.sortedKeys` compares them (numeric,
/// case-insensitive, forced ordering, system locale), because every content hash already stored and
/// every payload already delivered was computed with that order. The comparison is slow, but a type
/// encodes its keys in the same order every time, so each distinct key list is sorted once per
/// process and then looked up.
final class KeyOrder: @unchecked Sendable {
    /// The process-wide cache.
    static let shared = KeyOrder()

    private let lock = NSLock()
    private var cache: [[String]: [Int]] = [:]

    /// Indices into `keys` in canonical order.
    func order(of keys: [String]) -> [Int] {
        if keys.count < 2 { return Array(keys.indices) }
        if let known = lock.withLock({ cache[keys] }) { return known }
        let sorted = keys.indices.sorted { Self.precedes(keys[$0], keys[$1]) }
        lock.withLock {
            // Key lists come from types, so the cache stays small; a caller feeding ever new keys
            // (parsed JSON with data-dependent keys) must not grow it without bound.
            if cache.count > 4096 { cache.removeAll() }
            cache[keys] = sorted
        }
        return sorted
    }

    /// `true` when `a` is written before `b`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
                  locale: NSLocale.system) == .orderedAscending
    }
}
