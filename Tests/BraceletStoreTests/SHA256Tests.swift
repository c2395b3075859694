import Testing
@testable import BraceletStore

/// FIPS 180-2 appendix B example vectors.
@Test func sha256MatchesFIPSVectors() {
    #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    // One million 'a' (crosses many blocks).
    #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
}

/// The content hash of the canonical bytes pinned in the JSON writer's tests (CanonicalJSONTests):
/// together they fix the hash a stored summary gets for a known value.
@Test func contentHashOfThePinnedCanonicalBytes() {
    let golden = #"{"bpm":{"a_b":0.1,"a9":9,"a10":10,"ab":3,"aB":0,"averageBPM":64},"date":"2026-06-15","dayStart":1781474400,"flag":true,"missing":null,"note":"tab\there \"quoted\" back\\slash / é \u0001","slots":[{"bpm":58,"intervalDate":1781474400},{"bpm":61,"intervalDate":1781474460}],"temperatures":[36.5,1e-05,1e+16,123456789.123,0.3,-2.75,100]}"#
    #expect(SHA256.hex(Array(golden.utf8)) == "ed1302daebbece8d525ff10185c5a55b86b5bffc1b23dab4a83f93b5c2c09a78")
}
