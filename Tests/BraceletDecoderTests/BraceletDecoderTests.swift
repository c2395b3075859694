import Testing
@testable import BraceletDecoder

@Test func moduleLinks() { #expect(Bool(true)) }
