import Testing
@testable import BraceletTransport

@Test func moduleLinks() { #expect(Bool(true)) }
