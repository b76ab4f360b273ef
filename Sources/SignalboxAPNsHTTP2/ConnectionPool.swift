import Logging
import NIOCore
import NIOSSL
import SignalboxAPNs
import Synchronization

/// The connections of one (environment, team, key): picks the least-loaded usable one, opens more when all
/// are saturated, and reconnects with exponential back-off and jitter, never in a tight loop.
final class ConnectionPool: Sendable {
    private struct State {
        var connections: [APNsConnection] = []
        var opening: APNsConnection?
        var failures = 0
        var nextConnectAllowed = ContinuousClock.now
        var closed = false
    }

    private let endpoint: HTTP2Transport.Endpoint
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup
    private let configuration: HTTP2Transport.Configuration
    private let logger: Logger
    private let connectionIds: Atomic<Int>
    private let state = Mutex(State())

    init(
        endpoint: HTTP2Transport.Endpoint, tls: NIOSSLContext, group: any EventLoopGroup,
        configuration: HTTP2Transport.Configuration, logger: Logger
    ) {
        self.endpoint = endpoint
        self.tls = tls
        self.group = group
        self.configuration = configuration
        self.logger = logger
        self.connectionIds = Atomic(0)
    }

    /// Connections currently open or opening.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Total connections ever opened.
    var connectionsOpened: Int { connectionIds.load(ordering: .relaxed) }

    /// Sends on the best connection, moving to another after GOAWAY, resets or lost connections.
    func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws -> APNsResponse {
        var lastFailure = "no connection"
        for _ in 0..<configuration.maxAttempts {
            let connection = try await connection(deadline: deadline)
            do {
                return try await connection.send(request, deadline: NIODeadline(deadline)).get()
            } catch let failure as ConnectionFailure {
                lastFailure = "\(failure)"
                continue
            }
        }
        throw APNsTransportError(.connectionLost, lastFailure)
    }

    /// Retires every connection.
    func close() {
        let connections = state.withLock { state in
            state.closed = true
            defer { state.connections.removeAll() }
            return state.connections
        }
        for connection in connections { connection.retire() }
    }

    private enum Choice {
        case use(APNsConnection)
        case wait(APNsConnection)
        case backOff(until: ContinuousClock.Instant)
    }

    private func connection(deadline: ContinuousClock.Instant) async throws -> APNsConnection {
        while true {
            switch try choose() {
            case .use(let connection):
                return connection
            case .wait(let connection):
                do {
                    try await connection.established.get()
                    connectSucceeded(connection)
                    return connection
                } catch {
                    connectFailed(connection, error)
                }
            case .backOff(let until):
                if until > deadline {
                    throw APNsTransportError(.connectFailed, "APNs unreachable; next connect attempt after the deadline")
                }
                try await Task.sleep(until: until, clock: .continuous)
            }
        }
    }

    private func choose() throws -> Choice {
        try state.withLock { state in
            if state.closed { throw APNsTransportError(.shutdown, "transport is shut down") }
            state.connections.removeAll { !$0.isUsable.load(ordering: .relaxed) && $0 !== state.opening }
            let usable = state.connections.filter { $0.isUsable.load(ordering: .relaxed) && $0 !== state.opening }
            let best = usable.min { $0.load.load(ordering: .relaxed) < $1.load.load(ordering: .relaxed) }
            if let best {
                let saturated = best.load.load(ordering: .relaxed) >= best.streamLimit.load(ordering: .relaxed)
                if !saturated || state.opening != nil || state.connections.count >= configuration.maxConnectionsPerKey
                    || best.streamLimit.load(ordering: .relaxed) == 1
                {
                    return .use(best)
                }
            }
            if let opening = state.opening { return .wait(opening) }
            let now = ContinuousClock.now
            if now < state.nextConnectAllowed { return .backOff(until: state.nextConnectAllowed) }
            let id = connectionIds.add(1, ordering: .relaxed).newValue
            let connection = APNsConnection.connect(
                id: id, endpoint: endpoint, tls: tls, group: group, configuration: configuration, logger: logger
            )
            state.opening = connection
            state.connections.append(connection)
            return .wait(connection)
        }
    }

    private func connectSucceeded(_ connection: APNsConnection) {
        state.withLock { state in
            if state.opening === connection { state.opening = nil }
            state.failures = 0
        }
    }

    private func connectFailed(_ connection: APNsConnection, _ error: any Error) {
        let delay = state.withLock { state -> Duration in
            guard state.opening === connection else { return .zero }
            state.opening = nil
            state.connections.removeAll { $0 === connection }
            state.failures += 1
            let base = configuration.reconnectBackoff * (1 << min(state.failures - 1, 16))
            let capped = min(base, configuration.maxReconnectBackoff)
            let jittered = capped * Double.random(in: 0.5...1.0)
            state.nextConnectAllowed = .now + jittered
            return jittered
        }
        if delay > .zero {
            logger.info("APNs connect failed", metadata: ["apns.error": "\(error)", "apns.retry_in": "\(delay)"])
        }
    }
}

extension NIODeadline {
    init(_ instant: ContinuousClock.Instant) {
        let remaining = instant - .now
        self = .now() + .nanoseconds(max(0, remaining.nanoseconds))
    }
}
