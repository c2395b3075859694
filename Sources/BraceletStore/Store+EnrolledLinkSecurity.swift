/// The link an enrolled device needs (column `link_security` of `gateway_enrolments`): given at
/// enrolment or learned over a secured link, and from then on required before anything is sent.
public enum EnrolledLinkSecurity: String, Sendable, Hashable, Comparable, CaseIterable {
    /// Encrypted (Just Works or a bond).
    case encrypted
    /// Encrypted and authenticated (passkey entry or a passkey bond).
    case authenticated

    /// Ordered by strength.
    public static func < (a: EnrolledLinkSecurity, b: EnrolledLinkSecurity) -> Bool { a == .encrypted && b == .authenticated }
}

extension Store {
    /// The requirement a `link_security` column holds (`nil`: none known yet). A value this build
    /// does not know is an error naming the enrolment, never read as no requirement.
    static func enrolledLinkSecurity(_ text: String?, endpoint: String) throws -> EnrolledLinkSecurity? {
        guard let text else { return nil }
        guard let level = EnrolledLinkSecurity(rawValue: text) else {
            throw StoreError.invalidInput("the enrolment of \(endpoint) requires a link security this build does not know ('\(text)'); "
                                          + "enrol it again with --security (bracelet gateway enroll)")
        }
        return level
    }

    /// Sets what `endpoint`'s enrolment requires, as the operator gave it (`gateway enroll
    /// --security`); `nil` forgets it, to be learned again from what the device answers.
    public func setEnrolledLinkSecurity(endpoint: String, _ level: EnrolledLinkSecurity?) throws {
        try write { db in
            let statement = try db.prepare("UPDATE gateway_enrolments SET link_security = ?2 WHERE endpoint = ?1")
            statement.bind(endpoint, at: 1)
            statement.bind(level?.rawValue, at: 2)
            try statement.run()
        }
    }

    /// Raises what `endpoint`'s enrolment requires to `level`, learned over a link secured to it;
    /// never lowers it. Returns whether it changed.
    public func raiseEnrolledLinkSecurity(endpoint: String, to level: EnrolledLinkSecurity) throws -> Bool {
        try write { db in
            let statement = try db.prepare("""
                UPDATE gateway_enrolments SET link_security = ?2
                WHERE endpoint = ?1 AND (link_security IS NULL OR (link_security = 'encrypted' AND ?2 = 'authenticated'))
                """)
            statement.bind(endpoint, at: 1)
            statement.bind(level.rawValue, at: 2)
            try statement.run()
            return db.changes > 0
        }
    }
}
