import SignalboxAPNs

/// How events are fanned out and pushes delivered.
public struct DeliveryConfiguration: Sendable {
    /// Installations planned per fan-out step (one transaction each; an app fanning out alone plans at most half its
    /// in-flight limit, `FairShare.pageSize`). With `maxInFlight`, small enough that another
    /// app's push waits behind a short queue, large enough to keep a large event's rate (docs/performance.md, issue 29).
    public var fanOutBatch = 500
    /// Pushes sent at once.
    public var maxInFlight = 1_000
    /// Pushes that may wait handed off beyond `maxInFlight`, so that a fan-out plans its next page while the
    /// connections are full. Off by default: with the connections always full, another app's push waits longer
    /// (docs/performance.md, issue 29); a deployment with one tenant may set it to `fanOutBatch`.
    public var handOffAhead = 0
    /// Pushes claimed from the outbox per query.
    public var claimBatch = 1_000
    /// First retry delay after a sporadic 5xx or a lost answer; doubles per attempt, with jitter (`apns.md` §2.4).
    public var retryBase: Duration = .seconds(1)
    /// Longest retry delay.
    public var retryCap: Duration = .seconds(15 * 60)
    /// When an APNs host answers mostly 5xx, its sending as a whole slows down (instead of every push waiting).
    public var circuitBreaker = CircuitBreaker.Configuration()
    /// Attempts before a push is given up as failed.
    public var maxAttempts = 12
    /// How long an app's sending pauses after a credentials problem before it is tried again.
    public var credentialsPause: Duration = .seconds(60)
    /// How long one APNs request may take.
    public var requestTimeout: Duration = .seconds(30)
    /// How long a claimed push stays this instance's (the store's lease, set where the store is opened). Longer
    /// than any send with its resends, so a live instance never loses a claim; a stopped instance's claims are
    /// taken over by another within this time.
    public var claimLease: Duration = .seconds(120)
    /// Fan-out steps of one event that may fail in a row before the event is given up as `failed`.
    public var fanOutAttempts = 5
    /// Wait before a failed fan-out step is tried again, times the failures in a row (the other events go on).
    public var fanOutRetryDelay: Duration = .seconds(1)
    /// How long done and failed events are kept (their status readable) before they are deleted.
    public var eventRetention: Duration = .seconds(7 * 24 * 3600)
    /// How often events past their retention are looked for.
    public var eventPurgeInterval: Duration = .seconds(3600)

    public init() {}

    /// Delay before attempt `attempts + 1`: exponential from `retryBase`, at least `hint`, at most
    /// `retryCap`, scaled to 50–100 % by `jitter` (0…1, random in the dispatcher) so retries spread out.
    func retryDelay(attempts: Int, hint: Duration?, jitter: Double) -> Duration {
        let exponential = retryBase * Int(1 << min(attempts, 20))
        let delay = min(retryCap, max(exponential, hint ?? .zero))
        return delay * (0.5 + 0.5 * jitter)
    }
}
