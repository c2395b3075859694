import Testing
import BraceletProtocol

/// The one hex helper: bytes and fixed-width integers, both cases, separators, and parsing back.
@Suite struct HexTests {
    @Test func bytesAsHex() {
        #expect(hexString([0x01, 0xA0, 0xFF]) == "01a0ff")
        #expect(hexString([0xAB, 0x01, 0x0C], uppercase: true, separator: ":") == "AB:01:0C")
        #expect(hexString([UInt8]()) == "")
        #expect(hexString([0x5A], separator: " ") == "5a")
    }

    @Test func integersArePaddedToTheirWidth() {
        #expect(hexString(UInt8(0x0F)) == "0f")
        #expect(hexString(UInt16(0x2A), uppercase: true) == "002A")
        #expect(hexString(UInt32(0xEE9)) == "00000ee9")
        #expect(hexString(UInt64.max) == "ffffffffffffffff")
    }

    @Test func parsingAcceptsSeparatorsAndRefusesNonHex() {
        #expect(bytes(fromHex: "01:a0-FF 7e") == [0x01, 0xA0, 0xFF, 0x7E])
        #expect(bytes(fromHex: hexString([0, 1, 254, 255])) == [0, 1, 254, 255])
        #expect(bytes(fromHex: "0g") == nil)
        #expect(bytes(fromHex: "abc") == nil)
    }
}
