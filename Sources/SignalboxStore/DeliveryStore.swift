import Foundation
import SignalboxModel

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
    /// Events whose fan-out is not finished, oldest first.
    func eventsToFanOut(limit: Int) async throws -> [EventRecord]
    /// Plans the next batch of up to `batchSize` installations of the event's audience, stores the pushes
    /// (coalescing each into a pending push for the same token and payload) and advances the event's cursor.
    /// Up to `handOff` pushes due now and without a pending twin are stored already claimed (`sending`) and
    /// returned in `handedOff`: the caller sends them without a claim (and they are released, like any claim,
    /// if the process stops first).
    func fanOutStep(eventId: String, batchSize: Int, now: Date, handOff: Int) async throws -> FanOutStep

    /// Returns pushes left `sending` by a process that stopped to `pending`. Call once at start.
    func releaseClaims() async throws
    /// Marks up to `limit` due pending pushes `sending` and returns them, skipping `pausedApps`.
    func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush]
    /// Records the results: deletes finished pushes, reschedules retries, counts outcomes on their events,
    /// prunes dead tokens.
    func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary
    /// When the earliest pending push is due, if any.
    func nextDueDate(pausedApps: Set<String>) async throws -> Date?
    /// Pushes not yet finished (pending or sending).
    func outboxDepth() async throws -> Int
}
