/// How webhooks are sent: apart from pushes, with their own concurrency and deadlines.
public struct WebhookConfiguration: Sendable, Equatable {
    /// Deliveries in flight at once, over every endpoint; default 16.
    public var maxConcurrent: Int = 16
    /// Deadline of one delivery (connect, send, answer); default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// Back-off after a failed attempt: `retryBase × 2^(attempts)`, at most `retryCap`; defaults 5 s and 1 hour.
    public var retryBase: Duration = .seconds(5)
    public var retryCap: Duration = .seconds(3600)
    /// How long a claimed delivery stays this instance's before another may take it; above `requestTimeout`.
    /// Default 60 s.
    public var claimLease: Duration = .seconds(60)
    /// How long both secrets sign after a rotation when the request names no overlap; default 24 hours.
    public var secretOverlap: Duration = .seconds(86_400)
    /// How long lifecycle events are kept for replay once delivered everywhere; default 7 days.
    public var eventRetention: Duration = .seconds(7 * 86_400)

    /// Whether endpoints may point at loopback, private, link-local and other non-public addresses; default false,
    /// so a key holder cannot use the server to probe the operator's own network (tests and all-internal setups
    /// turn it on).
    public var allowPrivateTargets = false
    /// A PEM file of CA certificates trusted for `https` endpoints besides the system's roots (a private CA, or a
    /// receiver's self-signed certificate); nil: the system's roots only.
    public var caFile: String?

    public init() {}

    /// The target check that goes with `allowPrivateTargets`.
    public var targetCheck: WebhookTargetCheck { WebhookTargetCheck(allowPrivate: allowPrivateTargets) }

    /// The wait before the attempt after `attempts` failed ones.
    public func retryDelay(attempts: Int) -> Duration {
        let exponent = min(max(attempts - 1, 0), 30)
        let delay = retryBase * (1 << exponent)
        return min(delay, retryCap)
    }
}
