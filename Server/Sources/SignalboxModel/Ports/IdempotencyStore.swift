import Foundation

/// Keys that make a retried `POST …/events` or `…/pushes` answer the first result instead of acting twice
/// (`Idempotency-Key`). A key belongs to one app and lives `IdempotentRequest.window`; it is claimed before the
/// work or, for an event, written in the event's own transaction, so two requests racing with one key act once.
public protocol IdempotencyStore: Sendable {
    /// Stores `event` together with the key and `answer` in one transaction, unless the key is live: then nothing
    /// is stored and the claim says why (`replay` of the first answer, `mismatch`, or `inProgress`).
    func createEvent(_ event: EventRecord, idempotency: IdempotentRequest, answer: StoredAnswer) async throws -> IdempotencyClaim
    /// Claims the key for work done outside storage (a direct push). A claim left unanswered for
    /// `IdempotentRequest.abandonedAfter` (its process died mid-request) is taken over.
    func claimIdempotencyKey(_ request: IdempotentRequest) async throws -> IdempotencyClaim
    /// Records the answer of a claimed key, for its retries.
    func recordIdempotentAnswer(_ request: IdempotentRequest, _ answer: StoredAnswer) async throws
    /// Gives a claimed key up unanswered (the request was refused before it acted), so a retry runs again.
    func releaseIdempotencyKey(_ request: IdempotentRequest) async throws
    /// Deletes keys claimed before `cutoff`. - Returns: how many.
    func pruneIdempotencyKeys(before cutoff: Date) async throws -> Int
}

/// A request carrying an `Idempotency-Key`: its app, the key, and a digest of what it asks, so a retry is told
/// apart from another request reusing the key.
public struct IdempotentRequest: Sendable, Hashable {
    /// How long a key is remembered.
    public static let window: Duration = .seconds(24 * 3_600)
    /// How long a claim may wait for its answer before another request takes it over; far beyond any push's deadline.
    public static let abandonedAfter: Duration = .seconds(300)

    public var appId: String
    public var key: String
    public var fingerprint: String
    /// When the request arrived (the shared clock).
    public var at: Date

    public init(appId: String, key: String, fingerprint: String, at: Date) {
        self.appId = appId
        self.key = key
        self.fingerprint = fingerprint
        self.at = at
    }
}

/// An answer as sent: status and JSON body, kept to answer retries byte for byte.
public struct StoredAnswer: Sendable, Hashable {
    public var status: Int
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }
}

/// What a key's claim found.
public enum IdempotencyClaim: Sendable, Hashable {
    /// The key is this request's (for `createEvent`: the event is stored).
    case claimed
    /// The same request was answered before: answer this again.
    case replay(StoredAnswer)
    /// The key was used by a different request (another body or operation) within the window.
    case mismatch
    /// The same request is still being answered elsewhere.
    case inProgress
}
