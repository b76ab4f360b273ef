import Foundation

/// Records lifecycle events: each is kept for replay and queued for every endpoint of its app that takes its kind,
/// in one transaction.
public protocol LifecycleRecorder: Sendable {
    func recordLifecycleEvents(_ events: [LifecycleEvent]) async throws
}

/// Storage of webhook endpoints, the app's lifecycle events and the durable queue of their deliveries. Every backend
/// passes `WebhookStoreConformance`.
public protocol WebhookStore: LifecycleRecorder {
    /// - Throws: `StoreError.notFound` when the app does not exist.
    func createWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws
    /// The app's endpoints, oldest first, with their status.
    func webhookEndpoints(appId: String) async throws -> [WebhookEndpointStatus]
    func webhookEndpoint(appId: String, id: String) async throws -> WebhookEndpointStatus?
    /// Deletes the endpoint and its queued deliveries. - Returns: whether it existed.
    func deleteWebhookEndpoint(appId: String, id: String) async throws -> Bool
    /// Installs a new sealed secret; `previous` (sealed) keeps signing until `previousExpiresAt`, or is dropped when
    /// `nil`. - Returns: whether the endpoint exists.
    func rotateWebhookSecret(appId: String, id: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool

    /// The app's lifecycle events after the cursor `after` (an event id; nil: from the oldest kept), in id order.
    func lifecycleEvents(appId: String, after: String?, limit: Int) async throws -> [LifecycleEvent]
    /// Deletes up to `limit` events that occurred before `cutoff` and are owed to no endpoint. - Returns: how many.
    func purgeLifecycleEvents(before cutoff: Date, limit: Int) async throws -> Int

    /// Claims up to `limit` due deliveries for this process until `now + lease`: due ones that nobody holds and
    /// ones whose lease ended (their holder stopped). Instances sharing the database never claim one delivery at once.
    func claimWebhookDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [WebhookDelivery]
    /// Records an attempt of a delivery this process holds: delivered ones leave the queue, others wait for
    /// their retry. - Returns: whether the claim was still this process's.
    @discardableResult
    func completeWebhookDelivery(id: String, endpointId: String, result: WebhookAttemptResult, now: Date) async throws -> Bool
    /// Makes the deliveries claimed by an earlier process due at `now`: on a database one process owns, every claim of
    /// another owner; on a shared one nothing (a claim is due again when its lease ends). - Returns: how many.
    @discardableResult
    func releaseWebhookClaims(now: Date) async throws -> Int
    /// When the earliest queued delivery is due (or its lease ends), if any.
    func nextWebhookDueDate() async throws -> Date?
}
