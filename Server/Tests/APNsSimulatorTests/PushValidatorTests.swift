import Crypto
import Foundation
import SignalboxAPNs
import Testing

@testable import APNsSimulator

/// The simulator's validation, request by request, without sockets.
struct PushValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let key = SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "KEY1234567", teamId: "TEAM123456")
    static let token = String(repeating: "ab", count: 32)

    let validator = PushValidator(
        keys: [key.keyId: RegisteredKey(publicKey: key.publicKey, teamId: key.teamId)],
        bindings: [String(repeating: "cd", count: 32): "com.example.other.push-type.controls"],
        unregistered: [String(repeating: "ef", count: 32): Date(timeIntervalSince1970: 1_700_000_000.5)]
    )

    /// A valid controls request, changed by `edit`.
    static func request(_ edit: @Sendable (inout [String: String], inout String) -> Void = { _, _ in }) -> ReceivedRequest {
        var headers = [
            ":method": "POST", ":scheme": "https", ":path": "/3/device/" + token, ":authority": "localhost",
            "authorization": key.providerToken(issuedAt: now).bearer, "apns-push-type": "controls",
            "apns-topic": "com.example.app.push-type.controls", "apns-priority": "10", "apns-expiration": "0",
            "apns-id": "0b8e3b0a-8e1a-4b6f-9d7e-1c2d3e4f5a6b",
        ]
        var body = #"{"aps":{"content-changed":true}}"#
        edit(&headers, &body)
        return ReceivedRequest(headers: headers.map { ($0.key, $0.value) }, body: Array(body.utf8))
    }

    func verdict(_ request: ReceivedRequest, now: Date = now) -> Verdict {
        var auth = ConnectionAuth()
        return validator.validate(request, connection: &auth, connectionId: 1, now: now)
    }

    @Test func validControlsPushIsRecordedWithItsHeaders() throws {
        guard case .accepted(let push) = verdict(Self.request()) else {
            Issue.record("expected acceptance")
            return
        }
        #expect(push.token == Self.token)
        #expect(push.topic == "com.example.app.push-type.controls")
        #expect(push.pushType == "controls")
        #expect(push.priority == 10)
        #expect(push.expiration == "0")
        #expect(push.apnsId == "0b8e3b0a-8e1a-4b6f-9d7e-1c2d3e4f5a6b")
        #expect(push.payload == #"{"aps":{"content-changed":true}}"#)
    }

    @Test func widgetsAndFileProviderPushesAreAccepted() {
        let widgets = Self.request { headers, _ in
            headers["apns-push-type"] = "widgets"
            headers["apns-topic"] = "com.example.app.push-type.widgets"
            headers["apns-priority"] = nil
            headers["apns-expiration"] = nil
        }
        let fileProvider = Self.request { headers, body in
            headers["apns-push-type"] = "fileprovider"
            headers["apns-topic"] = "com.example.app.pushkit.fileprovider"
            headers["apns-priority"] = "5"
            body = #"{"container-identifier":"NSFileProviderWorkingSetContainerItemIdentifier","domain":"acct"}"#
        }
        for request in [widgets, fileProvider] {
            guard case .accepted = verdict(request) else {
                Issue.record("expected acceptance, got \(verdict(request))")
                continue
            }
        }
    }

    static let rejections: [(String, @Sendable (inout [String: String], inout String) -> Void, Int, APNsReason)] = [
        ("GET", { h, _ in h[":method"] = "GET" }, 405, .methodNotAllowed),
        ("bad path", { h, _ in h[":path"] = "/2/device/" + token }, 404, .badPath),
        ("empty token", { h, _ in h[":path"] = "/3/device/" }, 400, .missingDeviceToken),
        ("odd token", { h, _ in h[":path"] = "/3/device/abc" }, 400, .badDeviceToken),
        ("non-hex token", { h, _ in h[":path"] = "/3/device/zz" }, 400, .badDeviceToken),
        ("bad apns-id", { h, _ in h["apns-id"] = "not-a-uuid" }, 400, .badMessageId),
        ("no JWT", { h, _ in h["authorization"] = nil }, 403, .missingProviderToken),
        ("garbage JWT", { h, _ in h["authorization"] = "bearer a.b.c" }, 403, .invalidProviderToken),
        (
            "unknown kid",
            { h, _ in h["authorization"] = SigningKey(privateKey: .init(), keyId: "OTHERKEY01", teamId: "TEAM123456").providerToken(issuedAt: now).bearer },
            403, .invalidProviderToken
        ),
        (
            "signed by another key",
            { h, _ in h["authorization"] = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456").providerToken(issuedAt: now).bearer },
            403, .invalidProviderToken
        ),
        (
            "other team",
            { h, _ in h["authorization"] = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM999999").providerToken(issuedAt: now).bearer },
            403, .invalidProviderToken
        ),
        (
            "JWT older than an hour",
            { h, _ in h["authorization"] = key.providerToken(issuedAt: now.addingTimeInterval(-3601)).bearer },
            403, .expiredProviderToken
        ),
        ("unknown push type", { h, _ in h["apns-push-type"] = "widget" }, 400, .invalidPushType),
        ("no push type", { h, _ in h["apns-push-type"] = nil }, 400, .invalidPushType),
        ("no topic", { h, _ in h["apns-topic"] = nil }, 400, .missingTopic),
        ("topic without suffix", { h, _ in h["apns-topic"] = "com.example.app" }, 400, .badTopic),
        ("priority 7", { h, _ in h["apns-priority"] = "7" }, 400, .badPriority),
        ("expiration text", { h, _ in h["apns-expiration"] = "tomorrow" }, 400, .badExpirationDate),
        ("collapse id 65 bytes", { h, _ in h["apns-collapse-id"] = String(repeating: "x", count: 65) }, 400, .badCollapseId),
        ("empty payload", { _, b in b = "" }, 400, .payloadEmpty),
        ("payload over 4096", { _, b in b = #"{"aps":{"content-changed":true},"x":""# + String(repeating: "x", count: 4096) + #""}"# }, 413, .payloadTooLarge),
        ("not JSON", { _, b in b = "content-changed" }, 400, .payloadEmpty),
        ("no content-changed", { _, b in b = #"{"aps":{}}"# }, 400, .payloadEmpty),
        ("token bound to another topic", { h, _ in h[":path"] = "/3/device/" + String(repeating: "cd", count: 32) }, 400, .deviceTokenNotForTopic),
    ]

    @Test(arguments: rejections.indices)
    func invalidRequestIsRejectedWithAPNsReason(_ index: Int) {
        let (name, edit, status, reason) = Self.rejections[index]
        #expect(verdict(Self.request(edit)) == .rejected(status: status, reason: reason), "\(name)")
    }

    @Test func fileProviderPayloadNeedsContainerAndDomain() {
        let request = Self.request { headers, body in
            headers["apns-push-type"] = "fileprovider"
            headers["apns-topic"] = "com.example.app.pushkit.fileprovider"
            body = #"{"container-identifier":"x"}"#
        }
        #expect(verdict(request) == .rejected(status: 400, reason: .payloadEmpty))
    }

    @Test func duplicatedHeaderIsRejected() {
        var request = Self.request()
        request.headers.append(("apns-topic", "com.example.app.push-type.controls"))
        #expect(verdict(request) == .rejected(status: 400, reason: .duplicateHeaders))
    }

    @Test func unregisteredTokenGets410WithItsTimestamp() {
        let request = Self.request { h, _ in h[":path"] = "/3/device/" + String(repeating: "EF", count: 32) }
        #expect(verdict(request) == .rejected(status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000.5)))
    }

    @Test func newProviderTokenWithin20MinutesIsTooManyUpdates() {
        var auth = ConnectionAuth()
        let original = Self.request()
        let first = validator.validate(original, connection: &auth, connectionId: 1, now: Self.now)
        guard case .accepted = first else {
            Issue.record("first request rejected: \(first)")
            return
        }
        let later = Self.now.addingTimeInterval(19 * 60)
        let newToken = Self.request { h, _ in h["authorization"] = Self.key.providerToken(issuedAt: later).bearer }
        #expect(validator.validate(newToken, connection: &auth, connectionId: 1, now: later) == .rejected(status: 429, reason: .tooManyProviderTokenUpdates))
        // As on APNs, the connection is now unusable, even with the token it knew, until a switch would be allowed.
        #expect(validator.validate(original, connection: &auth, connectionId: 1, now: later) == .rejected(status: 429, reason: .tooManyProviderTokenUpdates))
        // After 20 minutes a new token is accepted.
        let muchLater = Self.now.addingTimeInterval(21 * 60)
        let refreshed = Self.request { h, _ in h["authorization"] = Self.key.providerToken(issuedAt: muchLater).bearer }
        guard case .accepted = validator.validate(refreshed, connection: &auth, connectionId: 1, now: muchLater) else {
            Issue.record("refreshed token rejected")
            return
        }
    }

    @Test func rejectedExpiredTokenDoesNotCountAsAnUpdate() {
        var auth = ConnectionAuth()
        let stale = Self.request { h, _ in h["authorization"] = Self.key.providerToken(issuedAt: Self.now.addingTimeInterval(-5400)).bearer }
        #expect(validator.validate(stale, connection: &auth, connectionId: 1, now: Self.now) == .rejected(status: 403, reason: .expiredProviderToken))
        guard case .accepted = validator.validate(Self.request(), connection: &auth, connectionId: 1, now: Self.now) else {
            Issue.record("fresh token after an expired one was rejected")
            return
        }
    }
}
