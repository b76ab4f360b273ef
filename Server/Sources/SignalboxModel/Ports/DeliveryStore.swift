import Foundation

/// Storage of events and the outbox: durable fan-out and delivery. Every step is one transaction, so a
/// crash at any point leaves either the step's whole effect or none of it.
public protocol DeliveryStore: Sendable {
    /// Per push type, the least seconds between two pushes to one token (absent: no minimum).
    func pushIntervals(appId: String) async throws -> [PushKind: Int]
    /// Replaces the app's minimum intervals. - Throws: `StoreError.notFound` for an unknown app.
    func setPushIntervals(appId: String, _ intervals: [PushKind: Int]) async throws

    /// Stores an accepted event (state `accepted`).
    func createEvent(_ event: EventRecord) async throws
    func eventStatus(appId: String, id: String) async throws -> EventStatus?
    /// The oldest event of each app whose fan-out is not finished, at most `limit` (apps), oldest first: an
    /// app's later events wait for its earlier ones, other apps' do not.
    func eventsToFanOut(limit: Int) async throws -> [QueuedEvent]
    /// Reads the event's next page of up to `batchSize` installations and calls `step` with it, inside one
    /// transaction: `step` plans the page and stores the pushes through `FanOutPage.store`. Without a page to plan
    /// (the event is finished, another instance holds it, or this call only prepared it), `step` is not called
    /// and the answer says which (`finished`, `busy`, neither). `urgent`: an event's first pushes wait for this page;
    /// a store whose transactions take turns runs it ahead of queued background work. `fullPage`: the size of the
    /// event's later pages (its first ones are smaller), in whole pages of which a large fan-out is cut into ranges.
    func fanOutPage(
        eventId: String, batchSize: Int, fullPage: Int, now: Date, urgent: Bool, _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep
    /// Gives up an event's fan-out: state `failed` with `reason` (and an `event.failed` lifecycle event at `now`).
    /// Pushes it already stored are still delivered.
    func failEvent(id: String, reason: String, now: Date) async throws
    /// Deletes up to `limit` events created before `cutoff` that are done (every push has an outcome) or failed.
    /// - Returns: how many were deleted.
    func purgeEvents(createdBefore cutoff: Date, limit: Int) async throws -> Int

    /// Returns to `pending` the claimed pushes whose owner is gone: on a database one process owns, every claim
    /// of an earlier process; on a shared one, claims whose lease ended before `now`. Call at start and now and
    /// then. - Returns: how many were released.
    @discardableResult
    func releaseClaims(now: Date) async throws -> Int
    /// Marks up to `limit` due pending pushes `sending`, claimed by this process until its lease ends, and returns them, skipping `pausedApps`. Apps take turns:
    /// each app's oldest due push first, then each app's second, and so on, so one app's backlog delays
    /// another app's push by one claim at most.
    func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush]
    /// Records the results of pushes this process still holds (a claim another instance took over after its
    /// lease ended is left to that instance): deletes finished pushes, reschedules retries, counts outcomes on their events,
    /// prunes dead tokens.
    func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary
    /// When the earliest pending push is due, if any.
    func nextDueDate(pausedApps: Set<String>) async throws -> Date?
    /// Pushes not yet finished (pending or sending).
    func outboxDepth() async throws -> Int
    /// The time on the clock that every instance sharing this storage reads (the database's), or nil when one
    /// process owns the storage and its own clock is the only one.
    func sharedTime() async throws -> Date?
    /// Brings the statistics the database plans an event's pages with up to date where it has none (registrations
    /// bulk-loaded before PostgreSQL analyzed their tables), so an event's first step need not.
    func refreshPlanningStatistics() async throws
}
