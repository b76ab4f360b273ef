import Foundation
import SignalboxModel
import Synchronization

/// A delivery store whose fan-out pages take a while, like a loaded database's, and which counts the pages that
/// overlapped another of the same event.
final class SlowPageStore: DeliveryStore {
    let base: any DeliveryStore
    let pageTime: Duration
    private let running = Mutex<[String: Int]>([:])
    private let counts = Mutex<(pages: Int, overlapping: Int)>((0, 0))

    init(_ base: any DeliveryStore, pageTime: Duration) {
        self.base = base
        self.pageTime = pageTime
    }

    /// Pages asked for, and how many of them began while another of the same event ran.
    var pages: (all: Int, overlapping: Int) { counts.withLock { ($0.pages, $0.overlapping) } }

    func fanOutPage(
        eventId: String, batchSize: Int, fullPage: Int, now: Date, urgent: Bool, _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep {
        let others = running.withLock { running in
            defer { running[eventId, default: 0] += 1 }
            return running[eventId, default: 0]
        }
        counts.withLock { $0.pages += 1; $0.overlapping += others > 0 ? 1 : 0 }
        defer { running.withLock { $0[eventId, default: 1] -= 1 } }
        try await Task.sleep(for: pageTime)
        return try await base.fanOutPage(eventId: eventId, batchSize: batchSize, fullPage: fullPage, now: now, urgent: urgent, step)
    }

    func pushIntervals(appId: String) async throws -> [PushKind: Int] { try await base.pushIntervals(appId: appId) }
    func setPushIntervals(appId: String, _ intervals: [PushKind: Int]) async throws { try await base.setPushIntervals(appId: appId, intervals) }
    func createEvent(_ event: EventRecord) async throws { try await base.createEvent(event) }
    func eventStatus(appId: String, id: String) async throws -> EventStatus? { try await base.eventStatus(appId: appId, id: id) }
    func eventsToFanOut(limit: Int) async throws -> [QueuedEvent] { try await base.eventsToFanOut(limit: limit) }
    func failEvent(id: String, reason: String, now: Date) async throws { try await base.failEvent(id: id, reason: reason, now: now) }
    func purgeEvents(createdBefore cutoff: Date, limit: Int) async throws -> Int { try await base.purgeEvents(createdBefore: cutoff, limit: limit) }
    func releaseClaims(now: Date) async throws -> Int { try await base.releaseClaims(now: now) }
    func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush] {
        try await base.claimDuePushes(now: now, limit: limit, pausedApps: pausedApps)
    }
    func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary { try await base.complete(completions, now: now) }
    func nextDueDate(pausedApps: Set<String>) async throws -> Date? { try await base.nextDueDate(pausedApps: pausedApps) }
    func outboxDepth() async throws -> Int { try await base.outboxDepth() }
    func sharedTime() async throws -> Date? { try await base.sharedTime() }
    func refreshPlanningStatistics() async throws { try await base.refreshPlanningStatistics() }
}
