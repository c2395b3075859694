import BraceletProtocol
import Testing
@testable import BraceletSync

private func hex(_ text: String) -> [UInt8] {
    guard let parsed = bytes(fromHex: text) else { fatalError("not hex: \(text)") }
    return parsed
}

/// RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 is a truncated MAC).
@Test func hmacSHA256MatchesRFC4231() {
    #expect(HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    #expect(HMACSHA256.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    #expect(HMACSHA256.hex(key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50))
        == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    #expect(HMACSHA256.hex(key: hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), message: [UInt8](repeating: 0xcd, count: 50))
        == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
    #expect(HMACSHA256.hex(key: [UInt8](repeating: 0xaa, count: 131),
                           message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    #expect(HMACSHA256.hex(key: [UInt8](repeating: 0xaa, count: 131), message: Array(
        "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8))
        == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    #expect(HMACSHA256.signatureHeader(body: Array("Hi There".utf8), secret: [UInt8](repeating: 0x0b, count: 20))
        == "sha256=b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
}

@Test func backoffDoublesUpToTheCapWithJitterInTheUpperHalf() throws {
    let policy = try RetryPolicy(baseDelayMilliseconds: 1_000, maxDelayMilliseconds: 8_000)
    #expect((1...6).map { policy.nominalDelayMilliseconds(afterFailures: $0) } == [1_000, 2_000, 4_000, 8_000, 8_000, 8_000])
    #expect((1...5).map { policy.delayMilliseconds(afterFailures: $0, unitRandom: 0) } == [500, 1_000, 2_000, 4_000, 4_000])
    #expect((1...5).map { policy.delayMilliseconds(afterFailures: $0, unitRandom: 1) } == [1_000, 2_000, 4_000, 8_000, 8_000])
    #expect(policy.delayMilliseconds(afterFailures: 3, unitRandom: 0.25) == 2_500)
    // Huge attempt numbers do not overflow; out-of-range randoms are clamped.
    #expect(policy.delayMilliseconds(afterFailures: 10_000, unitRandom: 7) == 8_000)
    #expect(policy.delayMilliseconds(afterFailures: 2, unitRandom: .nan) == 1_000)
    #expect(throws: SyncError.self) { try RetryPolicy(baseDelayMilliseconds: 0) }
    #expect(throws: SyncError.self) { try RetryPolicy(baseDelayMilliseconds: 10, maxDelayMilliseconds: 5) }
    #expect(policy.delayMilliseconds(afterFailures: Int.max, unitRandom: 1) == 8_000)
    #expect(throws: SyncError.self) { try RetryPolicy(maxDelayMilliseconds: 86_400_001) }
}

/// Option values a user types are refused with the option's name, never converted into a trap.
@Test func delaysAndTimeoutsOutOfRangeAreClearErrors() throws {
    for (base, max) in [(1.0, Double.infinity), (1e16, 1e16), (.nan, 10), (0, 10), (-1, 10), (1, 1e300)] {
        #expect(throws: SyncError.self) { try RetryPolicy(baseDelaySeconds: base, maxDelaySeconds: max) }
    }
    #expect(throws: SyncError.invalidOption(name: "--max-delay", value: "inf", rule: "a number of seconds from 0.001 to 86400")) {
        try RetryPolicy(baseDelaySeconds: 1, maxDelaySeconds: .infinity)
    }
    #expect(try RetryPolicy(baseDelaySeconds: 0.25, maxDelaySeconds: 86_400)
        == RetryPolicy(baseDelayMilliseconds: 250, maxDelayMilliseconds: 86_400_000))
    #expect(throws: SyncError.invalidOption(name: "--poll", value: "1e+300", rule: "a number of seconds from 0.001 to 86400")) {
        try SyncDuration.milliseconds(1e300, option: "--poll", upTo: 86_400)
    }
    #expect(throws: SyncError.self) { try WebhookSink(url: "http://127.0.0.1:1/x", secret: "k", timeoutSeconds: .infinity) }
    #expect(throws: SyncError.self) { try WebhookSink(url: "http://127.0.0.1:1/x", secret: "k", timeoutSeconds: 0) }
    #expect(try WebhookSink(url: "http://127.0.0.1:1/x", secret: "k", timeoutSeconds: 3_600).timeoutSeconds == 3_600)
}
