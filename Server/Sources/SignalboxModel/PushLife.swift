import Foundation

/// What an attempt's result does to its push: the rule every store applies in `complete`.
public enum PushLife {
    /// The push returns to pending, or leaves the outbox.
    public enum Step: Sendable, Hashable {
        /// Pending again from `at`. When a newer push for the same token and payload is already pending, that one
        /// absorbs this push's events instead (coalescing, as at planning).
        case backToPending(at: Date, usesAttempt: Bool, logged: DeliveryOutcome)
        /// Out of the outbox: its outcome, after `check`, is credited to every event it carries.
        case leaves(TokenCheck)
    }

    /// What a push that leaves the outbox asks of its token.
    public enum TokenCheck: Sendable, Hashable {
        /// Nothing: the outcome is final as it is.
        case none(DeliveryOutcome)
        /// 410: remove the token unless a registration renewed it at or after `since` (`TokenPruning`).
        case removeUnlessRenewed(since: Date?, reason: String)
        /// `BadDeviceToken` / `DeviceTokenNotForTopic`: one strike; the second removes the token (`TokenPruning`).
        case strike(reason: String)
    }

    public static func step(for result: DeliveryResult) -> Step {
        switch result {
        case .delivered: .leaves(.none(.delivered))
        case .failed: .leaves(.none(.failed))
        case .retry(let at): .backToPending(at: at, usesAttempt: true, logged: .retry)
        case .postpone(let at): .backToPending(at: at, usesAttempt: false, logged: .postponed)
        case .prune(let since, let reason): .leaves(.removeUnlessRenewed(since: since, reason: reason))
        case .suspect(let reason): .leaves(.strike(reason: reason))
        }
    }

    /// The outcome of a push that left: a removed token makes it `pruned`, a token kept makes a refusal `failed`.
    public static func outcome(of check: TokenCheck, tokenRemoved: Bool) -> DeliveryOutcome {
        switch check {
        case .none(let outcome): outcome
        case .removeUnlessRenewed, .strike: tokenRemoved ? .pruned : .failed
        }
    }
}
