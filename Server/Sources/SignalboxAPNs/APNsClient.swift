import Synchronization

/// Sends pushes through a transport with provider tokens from a manager, and classifies the answers.
///
/// ```swift
/// let client = APNsClient(transport: transport)
/// let result = try await client.send(push, environment: .sandbox, tokens: tokenManager)
/// if case .pruneToken(let since, _) = result.outcome { … }
/// ```
/// A class, so that each push's answer closure holds the client with one retain instead of copying its existential
/// transport.
public final class APNsClient: Sendable {
    public let transport: any APNsTransport
    /// How long one push may take, retries included.
    public let timeout: Duration
    private let hosts: HostBreakers

    /// - Parameters:
    ///   - circuitBreaker: when a host's answers are mostly 5xx, sending to it pauses (`CircuitBreaker`).
    ///   - now: the clock of the breakers.
    public init(
        transport: any APNsTransport, timeout: Duration = .seconds(30), circuitBreaker: CircuitBreaker.Configuration = .init(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.transport = transport
        self.timeout = timeout
        hosts = HostBreakers(configuration: circuitBreaker, now: now)
    }

    /// An answer and what it means.
    public struct Result: Sendable, Hashable {
        public var response: APNsResponse
        public var outcome: PushOutcome
    }

    /// Sends one push. On `ExpiredProviderToken` mints a new token (if the 20-minute rule allows) and retries once;
    /// on `TooManyProviderTokenUpdates` tells the manager not to mint; on an answer that retires the connection
    /// (`503 Shutdown`, `IdleTimeout`) sends once more at once, on another connection.
    /// - Throws: `APNsTransportError` when no answer arrived, or `circuitOpen` while the host is spared.
    public func send(_ push: Push, environment: APNsEnvironment, tokens: ProviderTokenManager) async throws -> Result {
        let deadline = ContinuousClock.now + timeout
        let token = tokens.current()
        let response = try await send(push, environment, token, tokens.key, deadline)
        return try await conclude(response, push, environment, tokens, token, deadline)
    }

    /// Sends one push as `send` does, without a task when its host is not spared: `completion` gets the result, or
    /// what is left for a task (a second request, a wait for a connection). The HTTP/2 transport answers on its
    /// event loop, so `completion` should be quick.
    public func start(
        _ push: Push, environment: APNsEnvironment, tokens: ProviderTokenManager, completion: @escaping @Sendable (Started<Result>) -> Void
    ) {
        // A closed breaker admits without a change of state; any other is `send`'s business.
        guard !hosts.isOpen(environment) else {
            completion(.unfinished { try await self.send(push, environment: environment, tokens: tokens) })
            return
        }
        let deadline = ContinuousClock.now + timeout
        let token = tokens.current()
        let request = APNsRequest(push: push, environment: environment, token: token, key: tokens.key)
        transport.start(request, deadline: deadline) { [self] started in
            switch started {
            case .finished(.success(let response)):
                hosts.record(environment, serverError: response.status >= 500)
                if let result = Self.concludeAtOnce(response, tokens) {
                    completion(.finished(.success(result)))
                } else {
                    completion(.unfinished { try await self.conclude(response, push, environment, tokens, token, deadline) })
                }
            case .finished(.failure(let error)):
                completion(.finished(.failure(error)))
            case .unfinished(let resume):
                completion(.unfinished {
                    let response = try await resume()
                    self.hosts.record(environment, serverError: response.status >= 500)
                    return try await self.conclude(response, push, environment, tokens, token, deadline)
                })
            }
        }
    }

    /// What a first answer means when no second request is needed; `nil` when one is (token refresh, reconnect).
    private static func concludeAtOnce(_ response: APNsResponse, _ tokens: ProviderTokenManager) -> Result? {
        switch PushOutcome(response) {
        case .refreshProviderToken, .reconnect:
            return nil
        case .retry(_, .some(.tooManyProviderTokenUpdates)):
            return Result(response: response, outcome: .retry(after: max(tokens.tooManyUpdates(), .seconds(60)), reason: .tooManyProviderTokenUpdates))
        case let outcome:
            return Result(response: response, outcome: outcome)
        }
    }

    /// What the first answer (sent with `token`) means, after the second request it may need.
    private func conclude(
        _ response: APNsResponse, _ push: Push, _ environment: APNsEnvironment, _ tokens: ProviderTokenManager, _ token: ProviderToken,
        _ deadline: ContinuousClock.Instant
    ) async throws -> Result {
        if let result = Self.concludeAtOnce(response, tokens) { return result }
        var response = response
        var outcome = PushOutcome(response)
        switch outcome {
        case .refreshProviderToken:
            if let fresh = tokens.expired(token) {
                response = try await send(push, environment, fresh, tokens.key, deadline)
                outcome = PushOutcome(response)
            }
            if outcome == .refreshProviderToken {
                // Still expired with a fresh token (or none allowed yet): the clock or key is wrong.
                outcome = .credentialsInvalid(reason: .expiredProviderToken)
            }
        default:
            // `.reconnect`: the push was not processed; the connection that refused it takes no new streams.
            response = try await send(push, environment, tokens.current(), tokens.key, deadline)
            outcome = PushOutcome(response)
        }
        return Result(response: response, outcome: outcome)
    }

    /// Opens the connection `bundleId`'s pushes to `environment` will use, so its first push does not wait for a
    /// TLS handshake behind whatever else is sending.
    public func prepare(bundleId: String, environment: APNsEnvironment, tokens: ProviderTokenManager) {
        transport.prepare(APNsLane(environment: environment, key: tokens.key, bundleId: bundleId))
    }

    /// Whether sending to `environment`'s host is paused by its circuit breaker.
    public func isSparing(_ environment: APNsEnvironment) -> Bool { hosts.isOpen(environment) }

    private func send(
        _ push: Push, _ environment: APNsEnvironment, _ token: ProviderToken, _ key: SigningKey,
        _ deadline: ContinuousClock.Instant
    ) async throws -> APNsResponse {
        let admission = hosts.admit(environment)
        if case .wait(let delay) = admission {
            throw APNsTransportError(.circuitOpen, "APNs \(environment.rawValue) answers mostly 5xx; sending paused", retryAfter: delay)
        }
        let request = APNsRequest(push: push, environment: environment, token: token, key: key)
        do {
            let response = try await transport.send(request, deadline: deadline)
            hosts.record(environment, serverError: response.status >= 500)
            return response
        } catch {
            // A probe that got no answer says as little for the host as a 5xx.
            if admission == .probe { hosts.record(environment, serverError: true) }
            throw error
        }
    }
}

/// A circuit breaker per APNs host (environment).
final class HostBreakers: Sendable {
    private let configuration: CircuitBreaker.Configuration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let breakers = Mutex<[APNsEnvironment: CircuitBreaker]>([:])

    init(configuration: CircuitBreaker.Configuration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.configuration = configuration
        self.now = now
    }

    func admit(_ environment: APNsEnvironment) -> CircuitBreaker.Admission {
        let now = now()
        return breakers.withLock { $0[environment, default: CircuitBreaker(configuration: configuration)].admit(now: now) }
    }

    func record(_ environment: APNsEnvironment, serverError: Bool) {
        let now = now()
        breakers.withLock { $0[environment, default: CircuitBreaker(configuration: configuration)].record(serverError: serverError, now: now) }
    }

    func isOpen(_ environment: APNsEnvironment) -> Bool { breakers.withLock { $0[environment]?.isOpen ?? false } }
}
