import Foundation
import SignalboxModel
import Synchronization

/// A delivery store around another whose fan-out steps first run `before` with the event's id, and `after` once
/// the step has ended, and whose listings of the events to fan out first run `listing`: a test makes one event's
/// steps throw or wait, or watches them, or holds the listings; and whose recording of answers first runs `completing`.
public final class HookedStepStore: DeliveryStore, Sendable {
    public struct Injected: Error {
        public init() {}
    }
    let base: any DeliveryStore
    let before: @Sendable (_ eventId: String) async throws -> Void
    let after: @Sendable (_ eventId: String) -> Void
    let listing: @Sendable () async -> Void
    let completing: @Sendable ([PushCompletion]) async throws -> Void
    private let counts = Mutex<[String: Int]>([:])
    private let ended = Mutex<[String: [FanOutStep]]>([:])

    public init(
        base: any DeliveryStore, before: @escaping @Sendable (_ eventId: String) async throws -> Void,
        after: @escaping @Sendable (_ eventId: String) -> Void = { _ in }, listing: @escaping @Sendable () async -> Void = {},
        completing: @escaping @Sendable ([PushCompletion]) async throws -> Void = { _ in }
    ) {
        self.base = base
        self.before = before
        self.after = after
        self.listing = listing
        self.completing = completing
    }

    /// Steps of `eventId` begun so far.
    public func steps(of eventId: String) -> Int { counts.withLock { $0[eventId, default: 0] } }

    /// What the steps of `eventId` that ended without an error did, in order.
    public func steps(endedOf eventId: String) -> [FanOutStep] { ended.withLock { $0[eventId, default: []] } }

    public func fanOutPage(
        eventId: String, batchSize: Int, fullPage: Int, now: Date, urgent: Bool, _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep {
        counts.withLock { $0[eventId, default: 0] += 1 }
        defer { after(eventId) }
        try await before(eventId)
        let result = try await base.fanOutPage(eventId: eventId, batchSize: batchSize, fullPage: fullPage, now: now, urgent: urgent, step)
        ended.withLock { $0[eventId, default: []].append(result) }
        return result
    }

    public func pushIntervals(appId: String) async throws -> [PushKind: Int] { try await base.pushIntervals(appId: appId) }
    public func setPushIntervals(appId: String, _ intervals: [PushKind: Int]) async throws { try await base.setPushIntervals(appId: appId, intervals) }
    public func createEvent(_ event: EventRecord) async throws { try await base.createEvent(event) }
    public func eventStatus(appId: String, id: String) async throws -> EventStatus? { try await base.eventStatus(appId: appId, id: id) }
    public func eventsToFanOut(limit: Int) async throws -> [QueuedEvent] {
        await listing()
        return try await base.eventsToFanOut(limit: limit)
    }
    public func failEvent(id: String, reason: String, now: Date) async throws { try await base.failEvent(id: id, reason: reason, now: now) }
    public func purgeEvents(createdBefore cutoff: Date, limit: Int) async throws -> Int { try await base.purgeEvents(createdBefore: cutoff, limit: limit) }
    public func releaseClaims(now: Date) async throws -> Int { try await base.releaseClaims(now: now) }
    public func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush] {
        try await base.claimDuePushes(now: now, limit: limit, pausedApps: pausedApps)
    }
    public func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary {
        try await completing(completions)
        return try await base.complete(completions, now: now)
    }
    public func nextDueDate(pausedApps: Set<String>) async throws -> Date? { try await base.nextDueDate(pausedApps: pausedApps) }
    public func outboxDepth() async throws -> Int { try await base.outboxDepth() }
    public func sharedTime() async throws -> Date? { try await base.sharedTime() }
    public func refreshPlanningStatistics() async throws { try await base.refreshPlanningStatistics() }
}
