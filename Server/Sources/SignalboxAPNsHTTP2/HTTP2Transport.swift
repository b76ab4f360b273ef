import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SignalboxAPNs
import Synchronization

/// The production APNs transport: HTTP/2 over TLS (ALPN `h2`) on swift-nio-http2, with connection pools per
/// (environment, team, key); a connection carries one provider token at a time.
///
/// ```swift
/// let transport = try HTTP2Transport(configuration: .init(), logger: logger)
/// let client = APNsClient(transport: transport)
/// let result = try await client.send(push, environment: .sandbox, tokens: tokens)
/// try await transport.shutdown()
/// ```
public final class HTTP2Transport: APNsTransport {
    private struct PoolKey: Hashable {
        var environment: APNsEnvironment
        var teamId: String
        var keyId: String
        var keyFingerprint: String
    }

    public let configuration: Configuration
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext
    private let logger: Logger
    private let pools = Mutex<[PoolKey: ConnectionPool]>([:])
    /// One per event loop of the group: a task sending from one uses that loop's connections.
    public let senderExecutors: [any TaskExecutor]

    /// - Throws: when the trust roots cannot be read.
    public init(
        configuration: Configuration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "signalbox.apns")
    ) throws {
        self.configuration = configuration
        self.group = eventLoopGroup
        senderExecutors = eventLoopGroup.makeIterator().map { EventLoopTaskExecutor($0) }
        self.logger = logger
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.applicationProtocols = ["h2"]
        tlsConfiguration.minimumTLSVersion = .tlsv12
        switch configuration.trustRoots {
        case .system: break
        case .pemFile(let path): tlsConfiguration.trustRoots = .file(path)
        case .pem(let text):
            tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(text.utf8)))
        }
        tls = try NIOSSLContext(configuration: tlsConfiguration)
    }

    public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws -> APNsResponse {
        try await pool(for: request).send(request, deadline: deadline)
    }

    /// Sends on a connection that is ready now, and completes on its event loop; otherwise leaves the request to
    /// `send` in a task. Started on an event loop of the group, it prefers that loop's connections.
    public func start(_ request: APNsRequest, deadline: ContinuousClock.Instant, completion: @escaping @Sendable (Started<APNsResponse>) -> Void) {
        do {
            try pool(for: request).start(request, deadline: deadline, completion: completion)
        } catch {
            completion(.finished(.failure(error)))
        }
    }

    /// Connections currently open across all pools.
    public var openConnections: Int { sum { $0.connectionCount } }

    /// Connections opened since start across all pools.
    public var connectionsOpened: Int { sum { $0.connectionsOpened } }

    /// Pushes sent again since start because their answer was lost: the most duplicates the transport may have caused.
    public var resentAfterLostAnswer: Int { sum { $0.resentAfterLostAnswer.load(ordering: .relaxed) } }

    /// Pushes moved to another connection since start because the server had not processed them.
    public var movedAfterRefusal: Int { sum { $0.movedAfterRefusal.load(ordering: .relaxed) } }

    private func sum(_ figure: (ConnectionPool) -> Int) -> Int { pools.withLock { $0.values.reduce(0) { $0 + figure($1) } } }

    /// Retires all connections; later sends fail with `.shutdown`.
    public func shutdown() async throws {
        let all = pools.withLock { pools in
            defer { pools.removeAll() }
            return Array(pools.values)
        }
        for pool in all { pool.close() }
    }

    private func pool(for request: APNsRequest) throws -> ConnectionPool {
        let key = PoolKey(environment: request.environment, teamId: request.teamId, keyId: request.keyId, keyFingerprint: request.keyFingerprint)
        return try pools.withLock { pools in
            if let pool = pools[key] { return pool }
            guard let endpoint = configuration.endpoints[request.environment] else {
                throw APNsTransportError(.connectFailed, "no endpoint configured for \(request.environment.rawValue)")
            }
            var logger = logger
            logger[metadataKey: "apns.environment"] = "\(request.environment.rawValue)"
            logger[metadataKey: "apns.team"] = "\(request.teamId)"
            let pool = ConnectionPool(endpoint: endpoint, tls: tls, group: group, configuration: configuration, logger: logger)
            pools[key] = pool
            return pool
        }
    }
}
