import Foundation
import SignalboxModel
import Testing

/// `PushLife`: what each attempt result does to its push, and the outcome a push that leaves is credited with.
@Suite struct PushLifeTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func eachResultTakesItsStep() {
        #expect(PushLife.step(for: .delivered) == .leaves(.none(.delivered)))
        #expect(PushLife.step(for: .failed(reason: "PayloadTooLarge")) == .leaves(.none(.failed)))
        #expect(PushLife.step(for: .retry(at: Self.at)) == .backToPending(at: Self.at, usesAttempt: true, logged: .retry))
        #expect(PushLife.step(for: .postpone(at: Self.at)) == .backToPending(at: Self.at, usesAttempt: false, logged: .postponed))
        #expect(PushLife.step(for: .prune(since: Self.at, reason: "Unregistered")) == .leaves(.removeUnlessRenewed(since: Self.at, reason: "Unregistered")))
        #expect(PushLife.step(for: .suspect(reason: "BadDeviceToken")) == .leaves(.strike(reason: "BadDeviceToken")))
    }

    @Test func aRefusalIsPrunedOnlyWhenTheTokenWasRemoved() {
        let prune = PushLife.TokenCheck.removeUnlessRenewed(since: nil, reason: "Unregistered")
        let strike = PushLife.TokenCheck.strike(reason: "BadDeviceToken")
        #expect(PushLife.outcome(of: prune, tokenRemoved: true) == .pruned)
        #expect(PushLife.outcome(of: prune, tokenRemoved: false) == .failed, "a token renewed after APNs's timestamp stays")
        #expect(PushLife.outcome(of: strike, tokenRemoved: true) == .pruned)
        #expect(PushLife.outcome(of: strike, tokenRemoved: false) == .failed, "a first strike keeps the token")
        #expect(PushLife.outcome(of: .none(.delivered), tokenRemoved: false) == .delivered)
    }

    @Test func onlyFinalOutcomesCountOnTheEvent() {
        #expect(DeliveryOutcome.allCases.compactMap(\.counter) == [.delivered, .failed, .pruned])
        #expect(DeliveryOutcome.retry.counter == nil && DeliveryOutcome.postponed.counter == nil)
    }
}

/// `MinimumInterval`: a push waits for its token's interval only when the app set one and the token had a push.
@Suite struct MinimumIntervalTests {
    @Test func aPushWaitsOnlyForAnIntervalThatHasNotPassed() {
        #expect(MinimumInterval.due(planned: 10_000, lastSent: nil, seconds: 60) == 10_000, "no earlier push")
        #expect(MinimumInterval.due(planned: 10_000, lastSent: 9_000, seconds: 0) == 10_000, "no interval")
        #expect(MinimumInterval.due(planned: 10_000, lastSent: 9_000, seconds: 5) == 14_000)
        #expect(MinimumInterval.due(planned: 10_000, lastSent: 1_000, seconds: 5) == 10_000, "the interval has passed")
    }
}
