/// Sends pushes through a transport with provider tokens from a manager, and classifies the answers.
///
/// ```swift
/// let client = APNsClient(transport: transport)
/// let result = try await client.send(push, environment: .sandbox, tokens: tokenManager)
/// if case .pruneToken(let since, _) = result.outcome { … }
/// ```
public struct APNsClient: Sendable {
    public let transport: any APNsTransport
    /// How long one push may take, retries included.
    public var timeout: Duration

    public init(transport: any APNsTransport, timeout: Duration = .seconds(30)) {
        self.transport = transport
        self.timeout = timeout
    }

    /// An answer and what it means.
    public struct Result: Sendable, Hashable {
        public var response: APNsResponse
        public var outcome: PushOutcome
    }

    /// Sends one push; on `ExpiredProviderToken` mints a new token (if the 20-minute rule allows) and
    /// retries once; on `TooManyProviderTokenUpdates` tells the manager not to mint.
    /// - Throws: `APNsTransportError` when no answer arrived.
    public func send(_ push: Push, environment: APNsEnvironment, tokens: ProviderTokenManager) async throws -> Result {
        let deadline = ContinuousClock.now + timeout
        let token = tokens.current()
        var response = try await send(push, environment, token, tokens.key, deadline)
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
        case .retry(_, .some(.tooManyProviderTokenUpdates)):
            outcome = .retry(after: max(tokens.tooManyUpdates(), .seconds(60)), reason: .tooManyProviderTokenUpdates)
        default:
            break
        }
        return Result(response: response, outcome: outcome)
    }

    private func send(
        _ push: Push, _ environment: APNsEnvironment, _ token: ProviderToken, _ key: SigningKey,
        _ deadline: ContinuousClock.Instant
    ) async throws -> APNsResponse {
        let request = APNsRequest(push: push, environment: environment, token: token, teamId: key.teamId, keyId: key.keyId)
        return try await transport.send(request, deadline: deadline)
    }
}
