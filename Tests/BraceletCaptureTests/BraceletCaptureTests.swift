import Testing
@testable import BraceletCapture

@Test func moduleLinks() { #expect(Bool(true)) }
