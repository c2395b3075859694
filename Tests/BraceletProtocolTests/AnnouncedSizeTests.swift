import Testing
import BraceletProtocol

/// A size that cannot be right is named as such, never as a truncated file.
@Suite struct AnnouncedSizeTests {
    @Test func aWrappedBeatsSizeIsNamedWrappedWithWhatToDo() throws {
        // 90 days of V2 beats, from the field report: 2 540 571 beats x 8 B + 36 = 20 324 604 bytes,
        // announced as u24: 20 324 604 - 16 777 216 = 3 547 388.
        let header = FileHeader(kind: .beats, model: .v2, serial: "V2SIM001", baseTime: 1_780_000_000,
                                timeZoneOffsetMinutes: 60, intervalSeconds: 0, recordCount: 2_540_571)
        let error = #expect(throws: AnnouncedSizeMismatch.self) { try header.check(announcedSize: 3_547_388) }
        let mismatch = try #require(error)
        #expect(mismatch.headerLength == 20_324_604)
        #expect(mismatch.isWrapped)
        #expect(mismatch.description.contains("wrapped"))
        #expect(mismatch.description.contains("firmware"))
        #expect(!mismatch.description.contains("truncated"))
    }

    @Test func aYearOfV2MetricsPastTheLimitIsWrappedTooAndAnyOtherDisagreementIsCorruption() throws {
        // 525 600 records x 32 B + 36 = 16 819 236 bytes: past the limit by 42 021.
        let year = FileHeader(kind: .metrics, model: .v2, serial: "V2", baseTime: 0, timeZoneOffsetMinutes: 0,
                              intervalSeconds: 60, recordCount: 525_600)
        let wrapped = #expect(throws: AnnouncedSizeMismatch.self) { try year.check(announcedSize: 16_819_236 - 16_777_216) }
        #expect(wrapped?.isWrapped == true)
        let small = FileHeader(kind: .metrics, model: .v1, serial: "V1", baseTime: 0, timeZoneOffsetMinutes: 0,
                               intervalSeconds: 60, recordCount: 1_440)
        #expect(throws: Never.self) { try small.check(announcedSize: 36 + 1_440 * 24) }
        let corrupted = #expect(throws: AnnouncedSizeMismatch.self) { try small.check(announcedSize: 36 + 1_440 * 24 - 10) }
        #expect(corrupted?.isWrapped == false)
        #expect(corrupted?.description.contains("corrupted") == true)
    }
}
