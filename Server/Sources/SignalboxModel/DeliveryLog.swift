import Foundation

/// What APNs (or the transport) said to one attempt, kept in the delivery log.
public struct DeliveryAnswer: Sendable, Hashable {
    /// The HTTP status; nil when no answer came (transport error, app deleted).
    public var status: Int?
    /// APNs's `reason`, or the transport's error code when there was no answer.
    public var reason: String?
    /// The `apns-id` of the answer, lower-cased.
    public var apnsId: String?

    public init(status: Int? = nil, reason: String? = nil, apnsId: String? = nil) {
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
    }
}

/// One line of the delivery log: one attempt at one push and what became of it.
public struct DeliveryLogEntry: Sendable, Hashable {
    public var appId: String
    public var token: String
    /// The APNs push type (`widgets`, `controls`, `fileprovider`, or another for a test push).
    public var pushType: String
    /// The event that planned the push; nil for a push sent directly (`POST …/pushes`, the dashboard).
    public var eventId: String?
    /// The installation the event's push went to; nil for a push sent directly.
    public var installationId: String?
    public var outcome: DeliveryOutcome
    public var answer: DeliveryAnswer
    /// 1 for the first attempt.
    public var attempt: Int
    public var at: Date

    public init(
        appId: String, token: String, pushType: String, eventId: String?, installationId: String? = nil, outcome: DeliveryOutcome, answer: DeliveryAnswer,
        attempt: Int, at: Date
    ) {
        self.appId = appId
        self.token = token
        self.pushType = pushType
        self.eventId = eventId
        self.installationId = installationId
        self.outcome = outcome
        self.answer = answer
        self.attempt = attempt
        self.at = at
    }
}

/// Where a token is registered: one installation's widget set, one control, or one File Provider registration.
public struct TokenRegistration: Sendable, Hashable {
    public var installationId: String
    public var userId: String?
    /// `widgets`, `controls` or `fileprovider`.
    public var kind: PushKind
    /// Widget kinds and families, the control's kind, or the File Provider domains: what the token reloads.
    public var targets: [String]
    /// The control's configuration (canonical JSON), or each widget's.
    public var configurations: [String]
    public var tokenSeenAt: Date

    public init(installationId: String, userId: String?, kind: PushKind, targets: [String], configurations: [String], tokenSeenAt: Date) {
        self.installationId = installationId
        self.userId = userId
        self.kind = kind
        self.targets = targets
        self.configurations = configurations
        self.tokenSeenAt = tokenSeenAt
    }
}

/// An event in a list: its id, when it came, its state and counters.
public struct EventSummary: Sendable, Hashable {
    public var id: String
    public var createdAt: Date
    public var status: EventStatus

    public init(id: String, createdAt: Date, status: EventStatus) {
        self.id = id
        self.createdAt = createdAt
        self.status = status
    }
}
