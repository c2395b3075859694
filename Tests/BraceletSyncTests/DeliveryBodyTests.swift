import BraceletStore
import BraceletSync
import Foundation
import Testing

private func entry(payload: String, user: String?) -> OutboxEntry {
    OutboxEntry(id: 1, key: "SN1/2026-06-17/daily/v1", kind: "daily", device: "SN1", localDate: "2026-06-17", version: 1,
                contentHash: "ab", payload: Data(payload.utf8), state: .pending, attempts: 0, nextAttemptAt: 0,
                lastError: nil, createdAt: 0, deliveredAt: nil, user: user)
}

@Test func theEnvelopeCarriesTheParticipantFirst() {
    let body = entry(payload: #"{"content_hash":"ab","key":"k"}"#, user: "P-0042").deliveryBody
    #expect(String(decoding: body, as: UTF8.self) == #"{"user":"P-0042","content_hash":"ab","key":"k"}"#)
    let anonymous = entry(payload: #"{"content_hash":"ab"}"#, user: nil).deliveryBody
    #expect(String(decoding: anonymous, as: UTF8.self) == #"{"user":null,"content_hash":"ab"}"#)
}

@Test func aBodyInAStandardSchemaGainsNoKey() {
    // A FHIR Bundle rendered for --payload fhir: a "user" key would make it invalid.
    let bundle = #"{"entry":[],"resourceType":"Bundle","type":"collection"}"#
    #expect(entry(payload: bundle, user: "P-0042").deliveryBody == Data(bundle.utf8))
}
