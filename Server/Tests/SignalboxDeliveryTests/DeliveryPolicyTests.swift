import Foundation
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel
import Testing

/// The delivery policy over every kind of answer: which pushes use an attempt, which wait without one, which are final.
@Suite struct DeliveryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    var configuration: DeliveryConfiguration {
        var configuration = DeliveryConfiguration()
        configuration.retryBase = .seconds(1)
        configuration.retryCap = .seconds(100)
        configuration.maxAttempts = 3
        configuration.credentialsPause = .seconds(60)
        return configuration
    }

    func decide(_ answer: DeliveryPolicy.Answer, attempts: Int = 0, jitter: Double = 1) -> DeliveryPolicy.Decision {
        DeliveryPolicy.decide(answer, attempts: attempts, now: now, configuration: configuration, jitter: jitter)
    }

    func apns(_ status: Int, _ reason: String? = nil, timestamp: Date? = nil) -> DeliveryPolicy.Answer {
        .apns(PushOutcome.classify(status: status, reason: reason.map { APNsReason(rawValue: $0) }, timestamp: timestamp))
    }

    @Test func finalAnswersEndThePushAndCountItsLatency() {
        let since = Date(timeIntervalSince1970: 900_000)
        let cases: [(DeliveryPolicy.Answer, DeliveryResult)] = [
            (apns(200), .delivered),
            (apns(410, "Unregistered", timestamp: since), .prune(since: since, reason: "Unregistered")),
            (apns(400, "BadDeviceToken"), .suspect(reason: "BadDeviceToken")),
            (apns(400, "DeviceTokenNotForTopic"), .suspect(reason: "DeviceTokenNotForTopic")),
            (apns(413, "PayloadTooLarge"), .failed(reason: "PayloadTooLarge")),
            (.transport(APNsTransportError(.invalidRequest, "a header HTTP/2 forbids")), .failed(reason: "a header HTTP/2 forbids")),
            (.invalid("no topic"), .failed(reason: "no topic")),
        ]
        for (answer, result) in cases {
            #expect(decide(answer) == DeliveryPolicy.Decision(result: result, pausesApp: nil, answered: true), "\(answer)")
        }
    }

    @Test func transientAnswersRetryWithBackOffUntilTheAttemptsRunOut() {
        // Exponential from retryBase, at least APNs' hint, at most retryCap, 50-100 % by jitter.
        #expect(decide(apns(500, "InternalServerError"), attempts: 0).result == .retry(at: now + 1))
        #expect(decide(apns(503, "ServiceUnavailable"), attempts: 1, jitter: 0).result == .retry(at: now + 1))
        #expect(decide(apns(429, "TooManyRequests"), attempts: 0).result == .retry(at: now + 5))
        #expect(decide(apns(403, "ExpiredProviderToken"), attempts: 1).result == .retry(at: now + 2))
        #expect(decide(.transport(APNsTransportError(.connectionLost, "reset")), attempts: 0).result == .retry(at: now + 1))
        #expect(decide(apns(429, "TooManyProviderTokenUpdates"), attempts: 0).result == .retry(at: now + 100))
        #expect(decide(apns(500, "InternalServerError"), attempts: 0).answered == false)
        // The last attempt's failure is final.
        #expect(decide(apns(500, "InternalServerError"), attempts: 2) == DeliveryPolicy.Decision(
            result: .failed(reason: "gave up after 3 attempts"), pausesApp: nil, answered: true
        ))
    }

    @Test func refusedCredentialsPauseTheAppWithoutUsingAnAttempt() {
        #expect(decide(apns(403, "InvalidProviderToken"), attempts: 2) == DeliveryPolicy.Decision(
            result: .postpone(at: now + 60), pausesApp: "InvalidProviderToken", answered: false
        ))
    }

    @Test func anOpenCircuitOrUnreadableStoragePostponesWithoutAnAttempt() {
        let open = APNsTransportError(.circuitOpen, "host answers 5xx", retryAfter: .seconds(10))
        #expect(decide(.transport(open), attempts: 2, jitter: 0).result == .postpone(at: now + 10))
        #expect(decide(.transport(open), attempts: 2, jitter: 1).result == .postpone(at: now + 15))
        #expect(decide(.unavailable, attempts: 2).result == .postpone(at: now + 60))
        #expect(decide(.unknownApp) == DeliveryPolicy.Decision(result: .failed(reason: "app deleted"), pausesApp: nil, answered: false))
    }
}
