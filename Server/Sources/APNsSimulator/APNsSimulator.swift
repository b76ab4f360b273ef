import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import SignalboxAPNs
import SignalboxAPNsHTTP2

/// An APNs double over real HTTP/2 + TLS that validates requests as APNs does and injects faults.
///
/// ```swift
/// let simulator = try await APNsSimulator.start()
/// simulator.register(publicKey: key.publicKey, keyId: "KEY1234567", teamId: "TEAM123456")
/// // send pushes to 127.0.0.1:\(simulator.port), trusting simulator.certificatePEM
/// let pushes = simulator.acceptedPushes
/// try await simulator.shutdown()
/// ```
public final class APNsSimulator: Sendable {
    /// The HTTP/2 port it listens on.
    public let port: Int
    /// The HTTP/1.1 admin port, when one was asked for.
    public let adminPort: Int?
    /// The server certificate (PEM), to trust as a root.
    public let certificatePEM: String

    let ledger: Ledger
    private let server: any Channel
    private let admin: (any Channel)?
    private let logger: Logger

    private init(port: Int, adminPort: Int?, certificatePEM: String, ledger: Ledger, server: any Channel, admin: (any Channel)?, logger: Logger) {
        self.port = port
        self.adminPort = adminPort
        self.certificatePEM = certificatePEM
        self.ledger = ledger
        self.server = server
        self.admin = admin
        self.logger = logger
    }

    /// Starts listening; returns once the ports are bound.
    /// - Throws: when the certificate is invalid or a port cannot be bound.
    public static func start(
        configuration: Configuration = .init(), logger: Logger = Logger(label: "signalbox.apns-simulator")
    ) async throws -> APNsSimulator {
        let identity: (certificate: String, key: String)
        switch configuration.tls {
        case .generated:
            let generated = try SelfSignedIdentity()
            identity = (generated.certificatePEM, generated.privateKeyPEM)
        case .pem(let certificateChain, let privateKey):
            identity = (certificateChain, privateKey)
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificate.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.key.utf8), format: .pem))
        )
        tls.applicationProtocols = ["h2"]
        let sslContext = try NIOSSLContext(configuration: tls)
        let ledger = Ledger(configuration: configuration)
        let settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.initialMaxConcurrentStreams)]
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: sslContext))
                    var connection = NIOHTTP2Handler.ConnectionConfiguration()
                    connection.initialSettings = settings
                    // After our GOAWAY a busy client's frames for refused streams arrive by the hundred, each a stream
                    // error; NIOHTTP2's anti-abuse limit would answer them with GOAWAY(0) and strand the streams it had
                    // promised to answer. APNs copes with them, so the double does too.
                    var streams = NIOHTTP2Handler.StreamConfiguration()
                    streams.streamErrorRateLimit.maximumCount = Int(Int32.max)
                    streams.streamResetFrameRateLimit.maximumCount = Int(Int32.max)
                    try sync.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: connection, streamConfiguration: streams))
                    // Request bodies use up the receive windows; this gives them back (streams keep the default size).
                    try sync.addHandler(InboundWindowHandler(connectionWindow: 1 << 20, streamWindow: 65_535))
                    try sync.addHandler(SimulatorConnectionHandler(ledger: ledger, configuration: configuration, logger: logger))
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        var admin: (any Channel)?
        if let adminPort = configuration.adminPort {
            do {
                admin = try await AdminServer.start(host: configuration.host, port: adminPort, ledger: ledger, logger: logger)
            } catch {
                try? await server.close()
                throw error
            }
        }
        let simulator = APNsSimulator(
            port: server.localAddress?.port ?? configuration.port, adminPort: admin?.localAddress?.port,
            certificatePEM: identity.certificate, ledger: ledger, server: server, admin: admin, logger: logger
        )
        logger.info("APNs simulator listening", metadata: ["simulator.port": "\(simulator.port)", "simulator.admin-port": "\(simulator.adminPort.map(String.init) ?? "none")"])
        return simulator
    }

    /// Trusts a signing key: provider tokens with this `kid` must be signed by it and name `teamId`.
    /// - Parameters:
    ///   - environment: the one environment the key is for (`BadEnvironmentKeyIdInToken` on a simulator playing the
    ///     other); nil: both.
    ///   - bundleIds: the topics' bundle ids the key may push to (`TopicDisallowed` for others); nil: any.
    public func register(
        publicKey: P256.Signing.PublicKey, keyId: String, teamId: String, environment: APNsEnvironment? = nil, bundleIds: Set<String>? = nil
    ) {
        ledger.register(RegisteredKey(publicKey: publicKey, teamId: teamId, environment: environment, bundleIds: bundleIds), keyId: keyId)
    }

    /// Ties `token` to one topic: pushes to it on any other topic get `DeviceTokenNotForTopic`.
    public func bind(token: String, topic: String) { ledger.bind(token: token.lowercased(), topic: topic) }

    /// From now on pushes to `token` get `410 Unregistered` with `date` as the timestamp.
    public func markUnregistered(token: String, at date: Date) {
        ledger.markUnregistered(token: token.lowercased(), at: date)
    }

    /// Applies these faults, one per request, to the next requests (replacing any earlier script).
    public func script(_ faults: [Fault]) { ledger.script(faults) }

    /// Accepted pushes, oldest first (at most `recordLimit`).
    public var acceptedPushes: [AcceptedPush] { ledger.accepted }
    /// Every push accepted since the start or the last reset.
    public var acceptedCount: Int { ledger.acceptedCount }
    public var stats: SimulatorStats { ledger.stats }

    /// Forgets accepted pushes, statistics and the fault script; keys and tokens stay.
    public func reset() { ledger.reset() }

    /// Waits until `count` pushes were accepted.
    /// - Returns: whether they were before `timeout`.
    public func waitForAccepted(count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ledger.acceptedCount < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Runs until the simulator is shut down.
    public func run() async throws {
        try await server.closeFuture.get()
    }

    /// Stops listening, closes every connection and the admin endpoint.
    public func shutdown() async throws {
        try? await admin?.close()
        try? await server.close()
        for connection in ledger.openConnections {
            try? await connection.close()
        }
    }
}
