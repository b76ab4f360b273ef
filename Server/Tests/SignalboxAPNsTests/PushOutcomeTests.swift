import Foundation
import SignalboxAPNs
import Testing

@Suite struct PushOutcomeTests {
    /// The expected class of every documented reason (`apns.md` §2.3).
    static let expectedNames: [String: String] = [
        "BadCollapseId": "rejected", "BadDeviceToken": "suspect-token", "BadExpirationDate": "rejected",
        "BadMessageId": "rejected", "BadPriority": "rejected", "BadTopic": "rejected",
        "DeviceTokenNotForTopic": "suspect-token", "DuplicateHeaders": "rejected", "IdleTimeout": "reconnect",
        "InvalidPushType": "rejected", "MissingDeviceToken": "rejected", "MissingTopic": "rejected",
        "PayloadEmpty": "rejected", "TopicDisallowed": "credentials-invalid", "BadCertificate": "credentials-invalid",
        "BadCertificateEnvironment": "credentials-invalid", "ExpiredProviderToken": "refresh-provider-token",
        "Forbidden": "credentials-invalid", "InvalidProviderToken": "credentials-invalid",
        "MissingProviderToken": "credentials-invalid", "UnrelatedKeyIdInToken": "reconnect",
        "BadEnvironmentKeyIdInToken": "credentials-invalid", "BadPath": "rejected", "MethodNotAllowed": "rejected",
        "ExpiredToken": "prune-token", "Unregistered": "prune-token", "PayloadTooLarge": "rejected",
        "TooManyProviderTokenUpdates": "retry", "TooManyRequests": "retry", "InternalServerError": "retry",
        "ServiceUnavailable": "retry", "Shutdown": "reconnect",
    ]

    @Test(arguments: APNsReason.documented.map { "\($0.status) \($0.reason.rawValue)" })
    func everyDocumentedReasonIsClassified(_ entry: String) throws {
        let parts = entry.split(separator: " ")
        let status = try #require(Int(parts[0]))
        let reason = APNsReason(rawValue: String(parts[1]))
        #expect(reason.isKnown)
        #expect(PushOutcome.classify(status: status, reason: reason).name == Self.expectedNames[reason.rawValue])
    }

    @Test func everyDocumentedReasonHasAnExpectation() {
        #expect(Set(APNsReason.documented.map(\.reason.rawValue)) == Set(Self.expectedNames.keys))
    }

    @Test func unregisteredCarriesTheTimestamp() {
        let body = Array(#"{"reason":"Unregistered","timestamp":1800000000123}"#.utf8)
        let response = APNsResponse(status: 410, apnsId: nil, uniqueId: nil, body: body)
        let since = Date(timeIntervalSince1970: 1_800_000_000.123)
        #expect(PushOutcome(response) == .pruneToken(since: since, reason: .unregistered))
    }

    @Test(arguments: [(410, "prune-token"), (429, "retry"), (500, "retry"), (502, "retry"), (400, "rejected"), (403, "rejected")])
    func unknownReasonsFallBackOnTheStatus(_ status: Int, _ name: String) {
        let outcome = PushOutcome.classify(status: status, reason: APNsReason(rawValue: "SomethingNew"))
        #expect(outcome.name == name)
        #expect(!APNsReason(rawValue: "SomethingNew").isKnown)
    }

    @Test func serverErrorsLeaveTheDelayToTheBackOffAndTooManyRequestsWaitsForThatTokenOnly() {
        #expect(PushOutcome.classify(status: 500, reason: .internalServerError) == .retry(after: .zero, reason: .internalServerError))
        #expect(PushOutcome.classify(status: 503, reason: .serviceUnavailable) == .retry(after: .zero, reason: .serviceUnavailable))
        #expect(PushOutcome.classify(status: 502, reason: nil) == .retry(after: .zero, reason: APNsReason(rawValue: "HTTP502")))
        #expect(PushOutcome.classify(status: 429, reason: .tooManyRequests) == .retry(after: .seconds(5), reason: .tooManyRequests))
        #expect(PushOutcome.classify(status: 503, reason: .shutdown) == .reconnect(reason: .shutdown))
    }

    @Test func successAndUnreadableBodies() {
        #expect(PushOutcome(APNsResponse(status: 200)) == .delivered)
        let garbled = APNsResponse(status: 500, apnsId: "not-a-uuid", uniqueId: nil, body: Array("<html>".utf8))
        #expect(garbled.reason == nil && garbled.apnsId == nil)
        #expect(PushOutcome(garbled).name == "retry")
    }

    /// The `apns-id` is read without Foundation's `UUID(uuidString:)`; it must accept and refuse the same ids.
    @Test func theApnsIdIsKeptAsLowerCaseTextWhenItIsAUUID() {
        let upper = APNsResponse(status: 200, apnsId: "EABEAE54-14A8-11E5-B60B-1697F925EC7B", uniqueId: nil, body: [])
        #expect(upper.apnsIdText == "eabeae54-14a8-11e5-b60b-1697f925ec7b")
        #expect(upper.apnsId == UUID(uuidString: "EABEAE54-14A8-11E5-B60B-1697F925EC7B"))
        let generated = UUID()
        #expect(APNsResponse(status: 200, apnsId: generated).apnsIdText == generated.uuidString.lowercased())
        let notIds = [
            "eabeae54-14a8-11e5-b60b-1697f925ec7", "eabeae54-14a8-11e5-b60b-1697f925ec7bb", "eabeae54x14a8-11e5-b60b-1697f925ec7b",
            "eabeae54-14a8-11e5-b60b-1697f925ec7g", "eabeae5-414a8-11e5-b60b-1697f925ec7b", "",
        ]
        for text in notIds {
            #expect(APNsResponse(status: 200, apnsId: text, uniqueId: nil, body: []).apnsIdText == nil, "\(text)")
            #expect(UUID(uuidString: text) == nil, "Foundation refuses \(text) too")
        }
    }
}
