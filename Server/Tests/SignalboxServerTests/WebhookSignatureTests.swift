import Foundation
import SignalboxWebhooks
import Testing

/// The signature header against values computed independently (Python's `hmac`, as in the README's snippet).
struct WebhookSignatureTests {
    static let body = Array(#"{"id":"lev_1"}"#.utf8)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theHeaderCarriesOneSignaturePerSecretCurrentFirst() {
        let header = WebhookSignature.header(timestamp: 1_800_000_000, body: Self.body, secrets: ["whsec_test", "whsec_old"])
        #expect(header == "t=1800000000,v1=bede8c0f8c1e845c4ca752b6b21ca1f6fbde92d2fefaa3748d44586b8662a1e1"
            + ",v1=cb34383abde40754c5259079b44a66dbd979f6f7add9134389c09583d6b42ed7")
        #expect(WebhookSignature.verify(header: header, body: Self.body, secret: "whsec_old", now: Self.now))
        #expect(!WebhookSignature.verify(header: header, body: Self.body, secret: "whsec_other", now: Self.now))
        #expect(!WebhookSignature.verify(header: header, body: Self.body + [32], secret: "whsec_test", now: Self.now), "another body")
        #expect(!WebhookSignature.verify(header: header, body: Self.body, secret: "whsec_test", now: Self.now + 301), "too old")
    }

    @Test(arguments: [(0, 5), (1, 5), (2, 10), (3, 20), (12, 3600), (40, 3600)])
    func backOffDoublesUpToItsCap(attempts: Int, seconds: Int) {
        #expect(WebhookConfiguration().retryDelay(attempts: attempts) == .seconds(seconds))
    }
}
