import Testing
@testable import BraceletStore

@Test func moduleLinks() { #expect(Bool(true)) }
