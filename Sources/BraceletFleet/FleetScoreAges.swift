import BraceletVitality
import Foundation

/// The age each device of `fleet score` is scored for (it selects the reference ranges): the
/// fleet database does not hold the participants' ages, the study does.
///
/// An age given for a device serial wins over one given for its participant, which wins over the
/// default; a device with none of them is not scored (its error says how to give one).
public struct FleetScoreAges: Sendable, Equatable {
    /// The age of every device not listed, `nil` for none.
    public var defaultAge: Int?
    /// Ages by device serial or participant id.
    public var bySubject: [String: Int]

    /// Ages from a default and a list by serial or participant.
    public init(default defaultAge: Int?, bySubject: [String: Int] = [:]) {
        self.defaultAge = defaultAge
        self.bySubject = bySubject
    }

    /// The age of `device` (worn by `user`), `nil` when none was given.
    public func age(device: String, user: String?) -> Int? {
        bySubject[device] ?? user.flatMap { bySubject[$0] } ?? defaultAge
    }

    /// Reads `SUBJECT,AGE` lines (a device serial or participant id, and whole years 18-120); blank
    /// lines and lines starting with `#` are skipped, and so is a first line `subject,age` (a header).
    ///
    /// - Throws: ``FleetError/admin(_:)`` naming the line that is not such a pair, or a subject
    ///   given twice.
    public static func parse(_ text: String, what: String) throws -> [String: Int] {
        var ages: [String: Int] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || (index == 0 && line.lowercased().replacingOccurrences(of: " ", with: "") == "subject,age") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2, !fields[0].isEmpty, let age = Int(fields[1]), ReferenceRanges.supportedAges.contains(age) else {
                throw FleetError.admin("\(what) line \(index + 1) is \"\(line)\": each line is SUBJECT,AGE, a device serial or participant id "
                    + "and whole years 18-120 (e.g. P-0042,35)")
            }
            guard ages.updateValue(age, forKey: fields[0]) == nil else {
                throw FleetError.admin("\(what) line \(index + 1) gives \(fields[0]) an age again: give each device or participant once")
            }
        }
        return ages
    }
}
