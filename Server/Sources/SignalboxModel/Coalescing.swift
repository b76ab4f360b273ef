/// When a push joins one already pending instead of waiting beside it, and whose events the survivor carries: the
/// rule every store applies when it plans pushes (`fanOutStep`) and when a claimed push returns to pending
/// (`complete` with a retry or postponement, `releaseClaims`).
///
/// The outbox keeps at most one pending push per `Key`. A push that would be a second one is absorbed: it is not
/// stored, and the pending push (its twin) carries its events instead, so one notification answers them all. A push
/// being sent (`sending`) absorbs nothing: what changed after it left needs a push of its own.
public enum Coalescing {
    /// What two pushes must share to coalesce: the app, the token and the payload (the SQL's unique partial index
    /// `outbox_pending` on `(app_id, token, payload) WHERE state = 'pending'`). The kind and environment are not
    /// part of it: one token belongs to one kind and one environment.
    public struct Key: Sendable, Hashable {
        public var appId: String
        public var token: String
        public var payload: String

        public init(appId: String, token: String, payload: String) {
            self.appId = appId
            self.token = token
            self.payload = payload
        }
    }

    /// Where a planned or returning push goes.
    public enum Placement<Push: Hashable & Sendable>: Sendable, Hashable {
        /// Into the outbox as a pending push of its own (a planned one; a returning one takes its `at`).
        case pending
        /// Into `twin`, the pending push with the same key: the twin keeps its own due time and attempts, and
        /// carries the absorbed push's events (`Carried.absorb`).
        case absorbed(into: Push)
    }

    /// Where a push goes, given the pending push with its key, if there is one.
    public static func place<Push>(pendingTwin: Push?) -> Placement<Push> {
        pendingTwin.map { .absorbed(into: $0) } ?? .pending
    }

    /// The events a push answers: the one that planned it, and those of the pushes absorbed into it.
    ///
    /// Each absorbed push counts once: when the push leaves the outbox, its outcome is credited to its own event
    /// once and to each absorbed event once per push of that event it absorbed, so every planned push (the event's
    /// `matched`) gets exactly one outcome.
    public struct Carried: Sendable, Hashable {
        /// The event that planned the push.
        public let event: String
        /// Events of absorbed pushes, with how many pushes of each.
        public private(set) var absorbed: [String: Int] = [:]

        public init(event: String) { self.event = event }

        /// Whether pushes were absorbed into this one (`OutboxPush.carriesAbsorbedEvents`).
        public var carriesAbsorbedEvents: Bool { !absorbed.isEmpty }

        /// A planned push of `event` was absorbed (the event counts it as `coalesced`).
        public mutating func absorb(planned event: String) { absorbed[event, default: 0] += 1 }

        /// A push that returned to pending was absorbed, with every event it carried (no event counts it as
        /// `coalesced`: it was planned, and counted, before).
        public mutating func absorb(returning other: Carried) {
            absorbed[other.event, default: 0] += 1
            absorbed.merge(other.absorbed, uniquingKeysWith: +)
        }

        /// How many outcomes each event gets when this push leaves the outbox.
        public var credits: [String: Int] { absorbed.merging([event: 1], uniquingKeysWith: +) }
    }
}
