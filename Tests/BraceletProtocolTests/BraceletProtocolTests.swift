import Testing
@testable import BraceletProtocol

@Test func moduleLinks() { #expect(Bool(true)) }
