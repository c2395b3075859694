import BraceletDecoder
import Foundation
import Testing
@testable import BraceletSummaries

@Suite struct CSVInputTests {
    @Test func readsColumnsByNameAndInfersTheInterval() throws {
        let text = """
        timestamp_ms,bpm,bpm_q,breath,steps,sleep_stage,wearing,skin_temp_c
        1768435200000,60,4,14.5,,2,4,33.1
        1768435260000,62,3,,10,2,4,
        1768435320000,,,,,,,

        1768435380000,64,4,15,0,3,4,33.3
        """
        let input = try CSVSampleReader.read(text)
        #expect(input.intervalSeconds == 60)
        #expect(input.slots.count == 3) // the all-empty row has no value
        #expect(input.diagnostics.isEmpty)
        let first = try #require(input.slots.first)
        #expect(first.start == jan15)
        #expect(first.bpm == 60)
        #expect(first.bpmQuality == 4)
        #expect(first.breath == 14.5)
        #expect(first.steps == nil) // empty cell is nil, not 0
        #expect(first.sleepStage == 2)
        #expect(first.skinTempC == 33.1)
        #expect(input.slots[1].steps == 10)
        #expect(input.slots[1].breath == nil)
    }

    @Test func badCellsAndRowsAreNamedAndTheRestIsUsed() throws {
        let text = """
        time,bpm,bpm_q,steps,colour
        1768435200000,60,4,5,red
        1768435260000,sixty,4,7,blue
        17684352,61,4,1,green
        1768435380000,62,9
        1768435440000,63,4,2,x,extra
        """
        let input = try CSVSampleReader.read(text, intervalSeconds: 60)
        let kinds = input.diagnostics.map(\.kind)
        #expect(kinds == [.csvUnknownColumn, .csvBadCell, .csvBadRow, .csvMissingCell, .csvBadCell, .csvExtraCells])
        let badCell = input.diagnostics[1]
        #expect(badCell.row == 3)
        #expect(badCell.column == "bpm")
        #expect(badCell.message.contains("line 3, column 'bpm'"))
        #expect(input.diagnostics[2].row == 4)
        #expect(input.diagnostics[3].column == "steps")
        #expect(input.diagnostics[4].column == "bpm_q") // 9 is outside 0...4
        #expect(input.slots.map(\.start) == [jan15, jan15 + 60, jan15 + 180, jan15 + 240])
        #expect(input.slots[1].bpm == nil)
        #expect(input.slots[1].steps == 7)
        #expect(input.slots[2].bpm == 62)
        #expect(input.slots[2].bpmQuality == nil)
    }

    @Test func rrRowsBecomeBeats() throws {
        let text = """
        timestamp_ms,rr_ms
        1768435200000,
        1768435201000,1000
        1768435202010,1010
        """
        let input = try CSVSampleReader.read(text)
        #expect(input.slots.isEmpty)
        #expect(input.intervalSeconds == nil)
        #expect(input.beats == [Beat(timeMs: 1_768_435_201_000, rrMs: 1000), Beat(timeMs: 1_768_435_202_010, rrMs: 1010)])
    }

    @Test func numbersAreReadAsSwiftReadsThemWhateverTheirSpelling() throws {
        // Cells the byte-level fast path computes and cells it hands to the full parser.
        let text = "# a comment\r\n time , bpm , breath,skin_temp_c , speed\r\n"
            + "1768435200000,\"60\",14.25,-0.5,1e-1\r\n"
            + "1.768435260e12,+61,.5,36.,0.1000000000000000055511151231257827\n"
            + "01768435320000,62.0,7,33.1234567890123456,00.3\n"
            + "1768435380000,6x,inf,1.5.1,-\n"
        let input = try CSVSampleReader.read(text)
        #expect(input.intervalSeconds == 60)
        // The last row has no usable cell, so no slot.
        #expect(input.slots.map(\.start) == [jan15, jan15 + 60, jan15 + 120])
        #expect(input.slots.map(\.bpm) == [60, 61, 62])
        #expect(input.slots.map(\.breath) == [14.25, 0.5, 7])
        #expect(input.slots.map(\.skinTempC) == [-0.5, 36, 33.1234567890123456])
        #expect(input.slots.map(\.speed) == [0.1, 0.1000000000000000055511151231257827, 0.3])
        #expect(input.diagnostics.map(\.column) == ["bpm", "breath", "skin_temp_c", "speed"])
        #expect(input.diagnostics.map(\.row) == [6, 6, 6, 6])
        #expect(input.diagnostics.first?.message == "line 6, column 'bpm': '6x' is not a whole number in -1000000000...1000000000: read as empty, the rest of the row was used")
    }

    @Test func fileLevelErrorsSayWhatToDo() {
        #expect(throws: CSVInputError.empty) { try CSVSampleReader.read("") }
        #expect(throws: CSVInputError.missingHeader(firstCell: "1768435200000")) {
            try CSVSampleReader.read("1768435200000,60\n")
        }
        #expect(throws: CSVInputError.self) { try CSVSampleReader.read("t,bpm\n1768435200000,60\n") }
        #expect(CSVInputError.cannotInferInterval(reason: "x").description.contains("--interval-s"))
    }
}
