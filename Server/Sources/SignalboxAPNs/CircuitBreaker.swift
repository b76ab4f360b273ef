/// Slows sending to one APNs host when most of its recent answers are server errors (`apns.md` §2.4): a
/// sporadic 500 is one push's problem and is retried in about a second; a burst means the host is in trouble,
/// and hammering it with every push's retry helps nobody.
///
/// Closed: every request goes. When at least `minimumAnswers` of the last `window` answers are known and
/// `failureRatio` of them are 5xx, it opens for `openFor`; then up to `probes` requests go (half-open). A probe
/// answered without a 5xx closes it; a failed probe opens it again for twice as long, up to `maxOpenFor`.
public struct CircuitBreaker: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Answers remembered.
        public var window = 100
        /// Answers needed before the breaker may open.
        public var minimumAnswers = 20
        /// Share of 5xx answers among the remembered ones that opens the breaker.
        public var failureRatio = 0.5
        /// First pause once open; doubles while probes fail.
        public var openFor: Duration = .seconds(1)
        /// Longest pause.
        public var maxOpenFor: Duration = .seconds(60)
        /// Requests let through to probe a host after a pause.
        public var probes = 3

        public init() {}
    }

    /// Whether a request may go now.
    public enum Admission: Sendable, Hashable {
        case allow
        /// Let through as a probe of a host that was failing.
        case probe
        /// Do not send before this much time has passed.
        case wait(Duration)
    }

    private enum State: Sendable, Hashable {
        case closed
        case open(until: ContinuousClock.Instant)
        case halfOpen(probesLeft: Int)
    }

    public let configuration: Configuration
    private var state = State.closed
    private var answers: [Bool] = []
    private var next = 0
    private var failures = 0
    private var pause: Duration

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        pause = configuration.openFor
    }

    /// Whether the host is being spared right now.
    public var isOpen: Bool { state != .closed }

    /// Decides about one request at `now`.
    public mutating func admit(now: ContinuousClock.Instant) -> Admission {
        switch state {
        case .closed:
            return .allow
        case .open(let until):
            guard now >= until else { return .wait(until - now) }
            state = .halfOpen(probesLeft: configuration.probes - 1)
            return .probe
        case .halfOpen(let probesLeft):
            guard probesLeft > 0 else { return .wait(configuration.openFor) }
            state = .halfOpen(probesLeft: probesLeft - 1)
            return .probe
        }
    }

    /// Records an answer at `now`: `serverError` for a 5xx.
    public mutating func record(serverError: Bool, now: ContinuousClock.Instant) {
        switch state {
        case .halfOpen:
            if serverError {
                pause = min(pause * 2, configuration.maxOpenFor)
                state = .open(until: now + pause)
            } else {
                state = .closed
                pause = configuration.openFor
                answers = []
                next = 0
                failures = 0
            }
        case .open:
            break
        case .closed:
            remember(serverError)
            if answers.count >= configuration.minimumAnswers, Double(failures) >= configuration.failureRatio * Double(answers.count) {
                state = .open(until: now + pause)
            }
        }
    }

    private mutating func remember(_ failed: Bool) {
        if answers.count < configuration.window {
            answers.append(failed)
        } else {
            if answers[next] { failures -= 1 }
            answers[next] = failed
            next = (next + 1) % configuration.window
        }
        if failed { failures += 1 }
    }
}
