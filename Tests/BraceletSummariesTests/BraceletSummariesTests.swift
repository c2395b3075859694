import Testing
@testable import BraceletSummaries

@Test func moduleLinks() { #expect(Bool(true)) }
