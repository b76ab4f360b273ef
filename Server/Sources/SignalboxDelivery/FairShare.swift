import SignalboxModel

/// How apps share the fan-out and the in-flight slots (`design.md`, "Tenants share fairly"): plain rules, no I/O.
enum FairShare {
    /// The order of one fan-out round, in which each app with an event to fan out takes one page: the app with
    /// the fewest pushes in flight first (a newcomer goes before the app already filling the slots), then the
    /// oldest event.
    static func round(_ events: [QueuedEvent], inFlight: [String: Int]) -> [QueuedEvent] {
        events.sorted { left, right in
            let (a, b) = (inFlight[left.appId, default: 0], inFlight[right.appId, default: 0])
            if a != b { return a < b }
            if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
            return left.id < right.id
        }
    }

    /// The most in-flight slots one app's hand-off may hold while `apps` apps fan out: all but a twentieth alone
    /// (kept free for another app's first pushes, which then leave at once instead of after a claim), an equal
    /// share otherwise (its other pushes are stored pending and claimed in turns with the other apps').
    static func handOffLimit(_ limit: Int, apps: Int) -> Int {
        apps <= 1 ? max(1, limit - limit / 20) : max(1, limit / apps)
    }

    /// The installations a page of an app fanning out alone plans: at most half its hand-off limit, so that its next
    /// page is planned while the previous one is sent. A page that does not fit twice goes out alone, and the
    /// connections have nothing to send while the next is planned (docs/performance.md). Another app's page keeps
    /// its size (its share decides).
    static func pageSize(_ size: Int, handOffLimit limit: Int, apps: Int) -> Int {
        guard apps <= 1, limit > 0 else { return size }
        return max(1, min(size, handOffLimit(limit, apps: 1) / 2))
    }

    /// The most pushes the dispatcher's claims may bring in flight: `maxInFlight`, but never into the twentieth of
    /// the hand-off limit kept free above (claims filling it left a newcomer's first page nothing to hand off, and
    /// its push waited for slots to free and a claim).
    static func claimLimit(maxInFlight: Int, handOffLimit: Int) -> Int {
        max(1, min(maxInFlight, handOffLimit - handOffLimit / 20))
    }
}

/// Consecutive fan-out failures per event: a failing event is retried later (the others go on meanwhile) and
/// given up after `attempts` failures in a row.
struct FanOutFailures {
    let attempts: Int
    let retryDelay: Duration
    private var failures: [String: (count: Int, retryAt: ContinuousClock.Instant)] = [:]

    init(attempts: Int, retryDelay: Duration) {
        self.attempts = max(1, attempts)
        self.retryDelay = retryDelay
    }

    /// Whether the event may take a step at `now` (it is not waiting for a retry).
    func isDue(_ event: String, at now: ContinuousClock.Instant) -> Bool {
        failures[event].map { $0.retryAt <= now } ?? true
    }

    /// When the first event waiting for a retry is due, if any.
    var nextRetry: ContinuousClock.Instant? { failures.values.map(\.retryAt).min() }

    mutating func succeeded(_ event: String) { failures[event] = nil }

    /// Forgets events no longer queued (finished elsewhere, their app deleted): a stale retry time would make
    /// `nextRetry` lie in the past and the fan-out loop spin.
    mutating func keep(only queued: [QueuedEvent]) {
        guard !failures.isEmpty else { return }
        let ids = Set(queued.map(\.id))
        failures = failures.filter { ids.contains($0.key) }
    }

    /// Counts a failure. - Returns: the failures in a row when the event is to be given up, else nil (it is
    /// retried after `retryDelay` times the failures so far).
    mutating func failed(_ event: String, at now: ContinuousClock.Instant) -> Int? {
        let count = (failures[event]?.count ?? 0) + 1
        guard count < attempts else {
            failures[event] = nil
            return count
        }
        failures[event] = (count, now + retryDelay * count)
        return nil
    }
}
