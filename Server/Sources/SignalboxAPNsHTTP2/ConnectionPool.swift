import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SignalboxAPNs
import Synchronization

/// The connections of one `APNsLane`: picks the least-loaded usable one, opens more when all
/// are saturated, and reconnects with exponential back-off and jitter, never in a tight loop.
final class ConnectionPool: Sendable {
    private struct State {
        var connections: [APNsConnection] = []
        var opening: APNsConnection?
        var failures = 0
        var nextConnectAllowed = ContinuousClock.now
        /// Why the last connect failed, named in the error of pushes that give up waiting for the next one.
        var lastConnectError: String?
        var closed = false
    }

    private let endpoint: HTTP2Transport.Endpoint
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup
    private let loops: [any EventLoop]
    private let configuration: HTTP2Transport.Configuration
    private let logger: Logger
    private let connectionIds: Atomic<Int>
    /// Pushes sent again because their answer was lost (each may be a duplicate on the device).
    let resentAfterLostAnswer = Atomic<Int>(0)
    /// Pushes moved to another connection because the server did not process them (never a duplicate).
    let movedAfterRefusal = Atomic<Int>(0)
    private let state = Mutex(State())

    init(
        endpoint: HTTP2Transport.Endpoint, tls: NIOSSLContext, group: any EventLoopGroup,
        configuration: HTTP2Transport.Configuration, logger: Logger
    ) {
        self.endpoint = endpoint
        self.tls = tls
        self.group = group
        loops = Array(group.makeIterator())
        self.configuration = configuration
        self.logger = logger
        self.connectionIds = Atomic(0)
    }

    /// Connections currently open or opening.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Total connections ever opened.
    var connectionsOpened: Int { connectionIds.load(ordering: .relaxed) }

    /// Sends on the best connection. A push the server did not process moves to another connection; one whose
    /// answer was lost is sent once more (`resendsAfterLostAnswer`); one whose answer was read is never re-sent.
    func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws -> APNsResponse {
        try await send(request, deadline: deadline, after: nil)
    }

    /// Sends on a usable connection if one is ready now (`completion` is then called on its event loop);
    /// otherwise, or when that connection gives the push back, leaves the rest to `send` in a task.
    func start(_ request: APNsRequest, deadline: ContinuousClock.Instant, completion: @escaping @Sendable (Started<APNsResponse>) -> Void) {
        guard case .use(let connection)? = try? choose() else {
            completion(.unfinished { try await self.send(request, deadline: deadline) })
            return
        }
        connection.send(request, deadline: NIODeadline(deadline)) { result in
            switch result {
            case .success(let response):
                completion(.finished(.success(response)))
            case .failure(ConnectionFailure.malformed(let why)):
                completion(.finished(.failure(APNsTransportError(.invalidRequest, why))))
            case .failure(let failure as ConnectionFailure):
                completion(.unfinished { try await self.send(request, deadline: deadline, after: failure) })
            case .failure(let error):
                completion(.finished(.failure(error)))
            }
        }
    }

    /// `send`, after a first connection ended with `failure` (if it did).
    private func send(_ request: APNsRequest, deadline: ContinuousClock.Instant, after failure: ConnectionFailure?) async throws -> APNsResponse {
        var refused = 0
        var lost = 0
        var failure = failure
        while true {
            switch failure {
            case nil:
                break
            case .notSent?, .refused?:
                refused += 1
                guard refused <= configuration.maxRefusedResends else {
                    throw APNsTransportError(.connectionLost, "refused by \(refused) connections in a row")
                }
                movedAfterRefusal.add(1, ordering: .relaxed)
            case .unknown(let why)?:
                lost += 1
                guard lost <= configuration.resendsAfterLostAnswer else { throw APNsTransportError(.connectionLost, why) }
                resentAfterLostAnswer.add(1, ordering: .relaxed)
            case .malformed(let why)?:
                throw APNsTransportError(.invalidRequest, why)
            }
            let connection = try await connection(deadline: deadline)
            do {
                return try await connection.send(request, deadline: NIODeadline(deadline))
            } catch let next as ConnectionFailure {
                failure = next
            }
        }
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
        case backOff(until: ContinuousClock.Instant, lastError: String?)
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
            case .backOff(let until, let lastError):
                if until > deadline {
                    let cause = lastError.map { " (last attempt: \($0))" } ?? ""
                    throw APNsTransportError(.connectFailed, "APNs unreachable\(cause); next connect attempt after the deadline")
                }
                try await Task.sleep(until: until, clock: .continuous)
            }
        }
    }

    /// Picks the least-loaded usable connection, preferring those on the caller's event loop: a task running
    /// there (see `HTTP2Transport.senderExecutors`) then sends and is answered without a thread switch.
    private func choose() throws -> Choice {
        let here = loopOfThisThread()
        return try state.withLock { state in
            if state.closed { throw APNsTransportError(.shutdown, "transport is shut down") }
            state.connections.removeAll { !$0.isUsable.load(ordering: .relaxed) && $0 !== state.opening }
            var best: APNsConnection?
            var bestHere: APNsConnection?
            for connection in state.connections where connection.isUsable.load(ordering: .relaxed) && connection !== state.opening {
                let load = connection.load.load(ordering: .relaxed)
                if load < best?.load.load(ordering: .relaxed) ?? .max { best = connection }
                if connection.eventLoop === here, load < bestHere?.load.load(ordering: .relaxed) ?? .max { bestHere = connection }
            }
            // Full: every stream taken after the first answer (before it, one stream is the rule, not a reason to grow).
            let isFull = { (connection: APNsConnection) in connection.isSaturated && connection.streamLimit.load(ordering: .relaxed) > 1 }
            if let bestHere, !isFull(bestHere) { return .use(bestHere) }
            // Grow when the best connection is full, or, on an event loop, when this loop has none with room.
            let wantsAnother = here != nil || best.map(isFull) ?? true
            let mayOpen = state.opening == nil && state.connections.count < configuration.maxConnectionsPerLane
            if mayOpen, wantsAnother, ContinuousClock.now >= state.nextConnectAllowed {
                let connection = open(&state, on: here ?? group.next())
                return best.map { .use($0) } ?? .wait(connection)
            }
            if let best { return .use(best) }
            if let opening = state.opening { return .wait(opening) }
            return .backOff(until: state.nextConnectAllowed, lastError: state.lastConnectError)
        }
    }

    /// Opens a connection on each event loop that has no usable one (up to `maxConnectionsPerLane`), one after
    /// the other, unless one is opening or a failed connect asks to wait: senders on every loop then find one of
    /// their own from the first push (docs/performance.md).
    func warm() {
        state.withLock { state in
            guard !state.closed, state.opening == nil, ContinuousClock.now >= state.nextConnectAllowed,
                state.connections.count < configuration.maxConnectionsPerLane
            else { return }
            let served = state.connections.filter { $0.isUsable.load(ordering: .relaxed) }.map(\.eventLoop)
            guard let loop = loops.first(where: { loop in !served.contains { $0 === loop } }) else { return }
            let connection = open(&state, on: loop)
            connection.established.whenSuccess { _ in self.warm() }
        }
    }

    /// Starts connecting on `loop`; the outcome is recorded when it comes, since senders may go on with other
    /// connections meanwhile and nobody may wait for this one.
    private func open(_ state: inout State, on loop: any EventLoop) -> APNsConnection {
        let id = connectionIds.add(1, ordering: .relaxed).newValue
        let connection = APNsConnection.connect(id: id, endpoint: endpoint, tls: tls, eventLoop: loop, configuration: configuration, logger: logger)
        state.opening = connection
        state.connections.append(connection)
        connection.established.whenComplete { result in
            switch result {
            case .success: self.connectSucceeded(connection)
            case .failure(let error): self.connectFailed(connection, error)
            }
        }
        return connection
    }

    /// The event loop of `group` this thread runs, if any.
    private func loopOfThisThread() -> (any EventLoop)? {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop else { return nil }
        return loops.contains { $0 === current } ? current : nil
    }

    private func connectSucceeded(_ connection: APNsConnection) {
        state.withLock { state in
            if state.opening === connection { state.opening = nil }
            state.failures = 0
            state.lastConnectError = nil
        }
    }

    private func connectFailed(_ connection: APNsConnection, _ error: any Error) {
        let delay = state.withLock { state -> Duration in
            guard state.opening === connection else { return .zero }
            state.opening = nil
            state.connections.removeAll { $0 === connection }
            state.failures += 1
            state.lastConnectError = (error as? APNsTransportError)?.message ?? "\(error)"
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
        self = .now() + TimeAmount(max(.zero, remaining))
    }
}
