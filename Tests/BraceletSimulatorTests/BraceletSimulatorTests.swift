import Testing
@testable import BraceletSimulator

@Test func moduleLinks() { #expect(Bool(true)) }
