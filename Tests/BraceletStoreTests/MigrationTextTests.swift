import Testing
@testable import BraceletStore

/// A shipped migration is never edited: databases in the field were made by its exact text, SQLite
/// keeps that text in `sqlite_master`, and ``Migrations/verify(_:)`` compares a file's schema with
/// the one this build's migrations create. So the text of each shipped migration must stay byte for
/// byte what it shipped as, however the source spells it (shared column lists included).
@Suite struct MigrationTextTests {
    /// SHA-256 of migrations 1 to 6 as they shipped. A new migration is appended, never added here
    /// by editing an old one.
    static let shipped = [
        "d2fa002a19e63578134be2726c48771eef3e9866364ec8a867f2d7ba37699876",
        "61877dceb99c4f742ac6341e76c3af78687fb35251f24ec04d09691734c25bdd",
        "34d4bfecf8824c2dca1772812a7e3fdfcceda81fc724ee4b868dda36e310e97a",
        "c0279f82601963d18c12fce082dbf79d0a3bd205b18e8d2e5c206d41e087747f",
        "fa85834d7dc57e85716d597cd2a3ce742183b870f57795d7648812b34c4069ee",
        "9daaba19f8ba7c8825fbaa266b696cd23f695ba59ad404df09777d9ea2105b57",
    ]

    @Test func shippedMigrationsKeepTheirText() {
        #expect(Migrations.all.count >= Self.shipped.count)
        for (index, hash) in Self.shipped.enumerated() where index < Migrations.all.count {
            #expect(SHA256.hex(Array(Migrations.all[index].utf8)) == hash, "migration \(index + 1) changed its text")
        }
    }
}
