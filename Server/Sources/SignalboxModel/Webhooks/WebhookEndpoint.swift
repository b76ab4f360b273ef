import Foundation

/// Where an app's lifecycle events are posted, with the sealed secret that signs them.
public struct WebhookEndpoint: Sendable, Equatable {
    public let id: String
    public let appId: String
    /// An `http` or `https` URL without credentials.
    public let url: String
    /// The kinds sent here; empty: every kind.
    public let kinds: [LifecycleEvent.Kind]
    /// The signing secret, sealed for this endpoint (`SecretBox`).
    public var sealedSecret: [UInt8]
    /// The secret before the last rotation: deliveries carry its signature too until `previousSecretExpiresAt`.
    public var previousSealedSecret: [UInt8]?
    public var previousSecretExpiresAt: Date?
    public let createdAt: Date

    public init(
        id: String, appId: String, url: String, kinds: [LifecycleEvent.Kind], sealedSecret: [UInt8], previousSealedSecret: [UInt8]? = nil,
        previousSecretExpiresAt: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.appId = appId
        self.url = url
        self.kinds = kinds
        self.sealedSecret = sealedSecret
        self.previousSealedSecret = previousSealedSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
    }

    /// Whether events of `kind` go to this endpoint.
    public func accepts(_ kind: LifecycleEvent.Kind) -> Bool { kinds.isEmpty || kinds.contains(kind) }
}

/// How an endpoint is doing: what an operator reads to see whether its backend hears the app.
public struct WebhookEndpointStatus: Sendable, Equatable {
    public let endpoint: WebhookEndpoint
    public let lastSuccessAt: Date?
    public let lastError: String?
    public let lastErrorAt: Date?
    /// Deliveries not yet accepted by the endpoint.
    public let backlog: Int

    public init(endpoint: WebhookEndpoint, lastSuccessAt: Date?, lastError: String?, lastErrorAt: Date?, backlog: Int) {
        self.endpoint = endpoint
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.backlog = backlog
    }
}

/// One lifecycle event owed to one endpoint, claimed for sending.
public struct WebhookDelivery: Sendable, Equatable {
    public let id: String
    public let endpoint: WebhookEndpoint
    public let event: LifecycleEvent
    /// Failed attempts so far.
    public let attempts: Int

    public init(id: String, endpoint: WebhookEndpoint, event: LifecycleEvent, attempts: Int) {
        self.id = id
        self.endpoint = endpoint
        self.event = event
        self.attempts = attempts
    }
}

/// What became of one attempt.
public enum WebhookAttemptResult: Sendable, Equatable {
    /// The endpoint answered 2xx.
    case delivered
    /// Try again at `at`; `error` says what went wrong (shown in the endpoint's status, never a secret).
    case retry(at: Date, error: String)
}
