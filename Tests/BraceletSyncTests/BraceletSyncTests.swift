import Testing
@testable import BraceletSync

@Test func moduleLinks() { #expect(Bool(true)) }
