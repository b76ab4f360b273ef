import Foundation

/// What to do after an APNs answer (`apns.md` §2.3–2.5): the classification every caller acts on.
public enum PushOutcome: Sendable, Hashable {
    /// APNs accepted the push.
    case delivered
    /// Try again after at least this delay (`.zero`: the caller's back-off alone decides): 429 `TooManyRequests`
    /// for this token only, a sporadic 5xx (a burst of them is the host's circuit breaker's business).
    case retry(after: Duration, reason: APNsReason?)
    /// The connection is unusable for this push; re-send on a new connection
    /// (`IdleTimeout`, `Shutdown`, `UnrelatedKeyIdInToken`).
    case reconnect(reason: APNsReason)
    /// The provider token expired: mint a new one and retry once.
    case refreshProviderToken
    /// The token is dead for the topic (410): delete it if it was last registered before `since`.
    case pruneToken(since: Date?, reason: APNsReason)
    /// The token is suspect (`BadDeviceToken`, `DeviceTokenNotForTopic`): verify environment and topic
    /// before deleting; a configuration error produces this for every token at once.
    case suspectToken(reason: APNsReason)
    /// The request was refused for good; do not retry it as it is.
    case rejected(reason: APNsReason)
    /// The app's credentials or configuration are wrong: pause that app's sending and alert.
    case credentialsInvalid(reason: APNsReason)

    /// Classifies an APNs response.
    public init(_ response: APNsResponse) {
        self = Self.classify(status: response.status, reason: response.reason, timestamp: response.timestamp)
    }

    /// Classifies a status and reason; unknown reasons fall back on the status class.
    public static func classify(status: Int, reason: APNsReason?, timestamp: Date? = nil) -> PushOutcome {
        if status == 200 { return .delivered }
        let reason = reason ?? APNsReason(rawValue: "HTTP\(status)")
        switch reason {
        case .expiredToken, .unregistered: return .pruneToken(since: timestamp, reason: reason)
        case .badDeviceToken, .deviceTokenNotForTopic: return .suspectToken(reason: reason)
        case .expiredProviderToken: return .refreshProviderToken
        case .idleTimeout, .shutdown, .unrelatedKeyIdInToken: return .reconnect(reason: reason)
        case .tooManyRequests: return .retry(after: .seconds(5), reason: reason)
        case .tooManyProviderTokenUpdates: return .retry(after: .seconds(20 * 60), reason: reason)
        case .internalServerError, .serviceUnavailable: return .retry(after: .zero, reason: reason)
        case .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIdInToken, .forbidden,
            .topicDisallowed, .badCertificate, .badCertificateEnvironment:
            return .credentialsInvalid(reason: reason)
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .badTopic, .duplicateHeaders,
            .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .badPath, .methodNotAllowed,
            .payloadTooLarge:
            return .rejected(reason: reason)
        default:
            switch status {
            case 410: return .pruneToken(since: timestamp, reason: reason)
            case 429: return .retry(after: .seconds(5), reason: reason)
            case 500...599: return .retry(after: .zero, reason: reason)
            default: return .rejected(reason: reason)
            }
        }
    }

    /// A short machine-readable name (`delivered`, `retry`, `pruned`, …) for logs, metrics and JSON.
    public var name: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retry"
        case .reconnect: "reconnect"
        case .refreshProviderToken: "refresh-provider-token"
        case .pruneToken: "prune-token"
        case .suspectToken: "suspect-token"
        case .rejected: "rejected"
        case .credentialsInvalid: "credentials-invalid"
        }
    }
}
