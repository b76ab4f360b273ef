import Foundation
import SignalboxModel
import Testing

/// The delivery rules the stores apply: when a token goes, when an event is done.
@Suite struct DeliveryRulesTests {
    @Test(arguments: [(1, false), (2, true), (3, true)])
    func aTokenGoesOnItsSecondStrike(strikes: Int, removed: Bool) {
        #expect(TokenPruning.removes(afterStrikes: strikes) == removed)
    }

    @Test func unregisteredRemovesUnlessRenewedSinceAPNsTimestamp() {
        let since = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(TokenPruning.removesUnregistered(since: nil, renewedSince: true), "no timestamp: gone")
        #expect(TokenPruning.removesUnregistered(since: since, renewedSince: false))
        #expect(!TokenPruning.removesUnregistered(since: since, renewedSince: true), "re-registered since")
    }

    @Test func aDeliveringEventIsDoneWhenEveryPushHasAnOutcome() {
        let done = EventStatus(state: .delivering, matched: 5, coalesced: 1, delivered: 3, failed: 1, pruned: 1)
        #expect(done.state == .done && done.pending == 0)
        let open = EventStatus(state: .delivering, matched: 5, coalesced: 0, delivered: 4, failed: 0, pruned: 0)
        #expect(open.state == .delivering && open.pending == 1)
        let planning = EventStatus(state: .fanningOut, matched: 0, coalesced: 0, delivered: 0, failed: 0, pruned: 0)
        #expect(planning.state == .fanningOut, "an event still being planned is not done")
    }
}
