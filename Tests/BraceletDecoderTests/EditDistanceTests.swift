import Testing
@testable import BraceletDecoder

@Suite struct EditDistanceTests {
    @Test func distanceIgnoresCase() {
        #expect(EditDistance.between("kitten", "Sitting") == 3)
        #expect(EditDistance.between("Europe/Amsterdm", "europe/amsterdam") == 1)
        #expect(EditDistance.between("", "abc") == 3)
    }

    @Test func nearestListsTheClosestFirstWithinTheMaximum() {
        let known = ["Europe/Amsterdam", "Europe/Andorra", "America/Adak", "Europe/Astrakhan"]
        let found = EditDistance.nearest(to: "Europe/Amsterdm", in: known, limit: 3, maximum: 4)
        #expect(found.map(\.name) == ["Europe/Amsterdam"])
        #expect(found.map(\.distance) == [1])
        #expect(EditDistance.nearest(to: "Mars/Base", in: known, limit: 3, maximum: 3).isEmpty)
        // Ties keep the order of the list; the limit cuts the farthest.
        #expect(EditDistance.nearest(to: "ab", in: ["ax", "xb", "ab", "zz"], limit: 2).map(\.name) == ["ab", "ax"])
        #expect(EditDistance.nearest(to: "a", in: ["bb", "b", "a"]) == "a")
        #expect(EditDistance.nearest(to: "x", in: []) == nil)
    }
}
