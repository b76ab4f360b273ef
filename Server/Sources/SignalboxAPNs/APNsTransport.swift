/// One push on its way to APNs: the push, which environment, and the provider authorization.
public struct APNsRequest: Sendable {
    public var push: Push
    public var environment: APNsEnvironment
    /// The provider token; connections are kept per `lane`.
    public var token: ProviderToken
    public var teamId: String
    public var keyId: String
    /// `SigningKey.fingerprint`: keys claiming the same ids never share a connection, so a misconfigured app's
    /// tokens cannot make a well-configured app's connection unusable.
    public var keyFingerprint: String

    public init(push: Push, environment: APNsEnvironment, token: ProviderToken, teamId: String, keyId: String, keyFingerprint: String = "") {
        self.push = push
        self.environment = environment
        self.token = token
        self.teamId = teamId
        self.keyId = keyId
        self.keyFingerprint = keyFingerprint
    }

    /// A request signed by `key`'s provider `token`.
    public init(push: Push, environment: APNsEnvironment, token: ProviderToken, key: SigningKey) {
        self.init(push: push, environment: environment, token: token, teamId: key.teamId, keyId: key.keyId, keyFingerprint: key.fingerprint)
    }

    /// The connections this request goes out on.
    public var lane: APNsLane {
        APNsLane(environment: environment, teamId: teamId, keyId: keyId, keyFingerprint: keyFingerprint, bundleId: push.bundleId)
    }
}

/// One app's own connections to one APNs environment: an app's pushes never queue behind another app's on the
/// same connection, so a quiet app is answered at once while a loud one has a thousand pushes in flight.
public struct APNsLane: Sendable, Hashable {
    public var environment: APNsEnvironment
    public var teamId: String
    public var keyId: String
    /// Keys claiming the same ids never share a connection (`APNsRequest.keyFingerprint`).
    public var keyFingerprint: String
    public var bundleId: String

    /// The lane of `bundleId`'s pushes to `environment` signed by `key`.
    public init(environment: APNsEnvironment, key: SigningKey, bundleId: String) {
        self.init(environment: environment, teamId: key.teamId, keyId: key.keyId, keyFingerprint: key.fingerprint, bundleId: bundleId)
    }

    public init(environment: APNsEnvironment, teamId: String, keyId: String, keyFingerprint: String, bundleId: String) {
        self.environment = environment
        self.teamId = teamId
        self.keyId = keyId
        self.keyFingerprint = keyFingerprint
        self.bundleId = bundleId
    }
}

/// Carries requests to APNs: the HTTP/2 transport in production, `InMemoryTransport` in unit tests.
public protocol APNsTransport: Sendable {
    /// Sends one request and returns APNs's answer, whatever its status.
    /// - Throws: `APNsTransportError` when no answer arrived (connection failure, deadline).
    func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws -> APNsResponse

    /// Executors on which tasks that send run cheapest (the HTTP/2 transport: one per event loop); spread
    /// sending tasks over them. Empty when it does not matter.
    var senderExecutors: [any TaskExecutor] { get }

    /// Sends one request without a task of its own: `completion` is called once, from any thread, with the answer
    /// or failure, or with what is left to do in a task when the request cannot be sent or finished at once (no
    /// connection ready, moved to another connection). A task per push costs a large share of a fan-out's CPU.
    func start(_ request: APNsRequest, deadline: ContinuousClock.Instant, completion: @escaping @Sendable (Started<APNsResponse>) -> Void)

    /// Opens a connection for `lane` now if it has none, so its first push does not wait for a TLS handshake.
    func prepare(_ lane: APNsLane)
}

extension APNsTransport {
    public var senderExecutors: [any TaskExecutor] { [] }

    /// Nothing to open.
    public func prepare(_ lane: APNsLane) {}

    /// Leaves the whole request to a task (`send`).
    public func start(_ request: APNsRequest, deadline: ContinuousClock.Instant, completion: @escaping @Sendable (Started<APNsResponse>) -> Void) {
        completion(.unfinished { try await send(request, deadline: deadline) })
    }

    /// The executor for the `index`-th sending task, round robin over `senderExecutors`; `nil` when there are none.
    public func senderExecutor(for index: Int) -> (any TaskExecutor)? {
        let executors = senderExecutors
        return executors.isEmpty ? nil : executors[index % executors.count]
    }
}

/// Why a transport produced no APNs answer. A push that failed this way may or may not have reached
/// APNs; re-sending is safe for content-changed pushes.
public struct APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The deadline passed before an answer arrived.
        case deadlineExceeded
        /// No connection could be made (DNS, TCP, TLS, ALPN).
        case connectFailed
        /// The connection closed or was reset before the answer.
        case connectionLost
        /// The transport is shut down.
        case shutdown
        /// The push cannot be sent as it is (a header HTTP/2 forbids, a stream reset as malformed); re-sending
        /// it would fail the same way.
        case invalidRequest
        /// Most recent answers from this APNs host were server errors; sending to it is paused (`retryAfter`).
        case circuitOpen
    }

    public let code: Code
    public let message: String
    /// When sending may be tried again (`circuitOpen`).
    public let retryAfter: Duration?

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// A transport that answers from a closure: for unit tests of code that sends pushes.
public struct InMemoryTransport: APNsTransport {
    private let answer: @Sendable (APNsRequest) async throws -> APNsResponse

    public init(answer: @escaping @Sendable (APNsRequest) async throws -> APNsResponse) {
        self.answer = answer
    }

    public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws -> APNsResponse {
        try await answer(request)
    }
}
