import Foundation

/// The delivery log (one line per push attempt, bounded per app by count and age) and the read queries of
/// the operator's views: where a token is registered, an app's events, counts for an overview.
public protocol DeliveryLogStore: Sendable {
    /// Adds lines for pushes sent outside the outbox (`POST …/pushes`, the dashboard's test push). Pushes of
    /// the outbox are logged by `complete` in the same transaction as their results.
    func logDeliveries(_ entries: [DeliveryLogEntry]) async throws
    /// The token's latest lines, newest first.
    func deliveryLog(appId: String, token: String, limit: Int) async throws -> [DeliveryLogEntry]
    /// The installation's latest lines (pushes of events to it, whichever token), newest first.
    func deliveryLog(appId: String, installationId: String, limit: Int) async throws -> [DeliveryLogEntry]
    /// The event's latest lines, newest first.
    func deliveryLog(appId: String, eventId: String, limit: Int) async throws -> [DeliveryLogEntry]
    /// Lines per outcome logged at or after `since`.
    func deliveryOutcomes(appId: String, since: Date) async throws -> [DeliveryOutcome: Int]
    /// The event's lines per outcome.
    func deliveryOutcomes(appId: String, eventId: String) async throws -> [DeliveryOutcome: Int]
    /// Deletes lines older than `cutoff`, and each app's lines beyond its newest `keepPerApp`. - Returns: how many.
    func pruneDeliveryLog(before cutoff: Date, keepPerApp: Int) async throws -> Int

    /// Every registration holding the token.
    func registrations(appId: String, token: String) async throws -> [TokenRegistration]
    /// Ids of the user's installations, at most `limit`.
    func installationIds(appId: String, userId: String, limit: Int) async throws -> [String]
    /// Ids of the app's installations in id order, at most `limit`, those after `after` (the last id of the
    /// previous page): the pages of `signalbox tokens export`.
    func installationIds(appId: String, after: String?, limit: Int) async throws -> [String]
    /// The app's events, newest first; `after` is the last id of the previous page.
    /// - Throws: `StoreError.notFound` when `after` names no event of the app.
    func events(appId: String, state: EventState?, limit: Int, after: String?) async throws -> [EventSummary]
    /// One event with its creation time.
    func event(appId: String, id: String) async throws -> EventSummary?
    /// Installations, and registrations per kind (tokens for widgets and File Provider, controls for controls).
    func registrationCounts(appId: String) async throws -> RegistrationCounts
    /// The app's pushes not yet finished.
    func outboxDepth(appId: String) async throws -> Int
}

/// How much an app has registered.
public struct RegistrationCounts: Sendable, Hashable {
    public var installations: Int
    public var byKind: [PushKind: Int]

    public init(installations: Int, byKind: [PushKind: Int]) {
        self.installations = installations
        self.byKind = byKind
    }
}
