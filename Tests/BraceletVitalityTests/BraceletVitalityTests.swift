import Testing
@testable import BraceletVitality

@Test func moduleLinks() { #expect(Bool(true)) }
