import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SignalboxAPNs
import Synchronization

/// The production APNs transport: HTTP/2 over TLS (ALPN `h2`) on swift-nio-http2, with a connection pool per
/// `APNsLane` (an app's environment, team, key and bundle id); a connection carries one provider token at a time.
///
/// ```swift
/// let transport = try HTTP2Transport(configuration: .init(), logger: logger)
/// let client = APNsClient(transport: transport)
/// let result = try await client.send(push, environment: .sandbox, tokens: tokens)
/// try await transport.shutdown()
/// ```
public final class HTTP2Transport: APNsTransport {
    public let configuration: Configuration
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext
    private let logger: Logger
    private struct Pools {
        var byLane: [APNsLane: ConnectionPool] = [:]
        var isShutDown = false
    }

    private let pools = Mutex(Pools())
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
        try await pool(for: request.lane).send(request, deadline: deadline)
    }

    /// Sends on a connection that is ready now, and completes on its event loop; otherwise leaves the request to
    /// `send` in a task. Started on an event loop of the group, it prefers that loop's connections.
    public func start(_ request: APNsRequest, deadline: ContinuousClock.Instant, completion: @escaping @Sendable (Started<APNsResponse>) -> Void) {
        do {
            try pool(for: request.lane).start(request, deadline: deadline, completion: completion)
        } catch {
            completion(.finished(.failure(error)))
        }
    }

    /// Opens a connection for the lane on each event loop that has none (`ConnectionPool.warm`).
    public func prepare(_ lane: APNsLane) {
        try? pool(for: lane).warm()
    }

    /// Connections currently open across all pools.
    public var openConnections: Int { sum { $0.connectionCount } }

    /// Connections opened since start across all pools.
    public var connectionsOpened: Int { sum { $0.connectionsOpened } }

    /// Pushes sent again since start because their answer was lost: the most duplicates the transport may have caused.
    public var resentAfterLostAnswer: Int { sum { $0.resentAfterLostAnswer.load(ordering: .relaxed) } }

    /// Pushes moved to another connection since start because the server had not processed them.
    public var movedAfterRefusal: Int { sum { $0.movedAfterRefusal.load(ordering: .relaxed) } }

    private func sum(_ figure: (ConnectionPool) -> Int) -> Int { pools.withLock { $0.byLane.values.reduce(0) { $0 + figure($1) } } }

    /// Retires all connections; later sends fail with `.shutdown`.
    public func shutdown() async throws {
        let all = pools.withLock { pools in
            defer { pools = Pools(isShutDown: true) }
            return Array(pools.byLane.values)
        }
        for pool in all { pool.close() }
    }

    private func pool(for lane: APNsLane) throws -> ConnectionPool {
        try pools.withLock { pools in
            guard !pools.isShutDown else { throw APNsTransportError(.shutdown, "transport is shut down") }
            if let pool = pools.byLane[lane] { return pool }
            guard let endpoint = configuration.endpoints[lane.environment] else {
                throw APNsTransportError(.connectFailed, "no endpoint configured for \(lane.environment.rawValue)")
            }
            var logger = logger
            logger[metadataKey: "apns.environment"] = "\(lane.environment.rawValue)"
            logger[metadataKey: "apns.team"] = "\(lane.teamId)"
            logger[metadataKey: "apns.bundle"] = "\(lane.bundleId)"
            let pool = ConnectionPool(endpoint: endpoint, tls: tls, group: group, configuration: configuration, logger: logger)
            pools.byLane[lane] = pool
            return pool
        }
    }
}
