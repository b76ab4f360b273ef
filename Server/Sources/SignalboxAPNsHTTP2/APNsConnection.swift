import Logging
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import SignalboxAPNs
import Synchronization

/// One HTTP/2-over-TLS connection to APNs: a thin I/O shell around `ConnectionStateMachine`.
///
/// `@unchecked Sendable`: every mutable property except the atomics is touched only on `eventLoop`
/// (entry points hop onto it first).
final class APNsConnection: ConnectionEvents, @unchecked Sendable {
    let id: Int
    let eventLoop: any EventLoop
    let authority: String
    private let configuration: HTTP2Transport.Configuration
    private let logger: Logger
    private var channel: (any Channel)?
    private var handler: ConnectionHandler?
    private var state: ConnectionStateMachine<PendingPush>
    private var lastActivity = NIODeadline.now()
    private var pingSentAt: NIODeadline?
    private var pingTask: RepeatedTask?
    /// Why the connection stopped taking streams (GOAWAY and its reason, an error), for the log line of its end.
    private var closeCause: String?
    private var retiredByUs = false
    private var drainTimeout: Scheduled<Void>?
    private let establishedPromise: EventLoopPromise<Void>
    /// Set once `establishedPromise` is completed, either way.
    private var setUpFinished = false
    private var setUpTimeout: Scheduled<Void>?
    /// Requests sent through this connection, checked against their deadlines every `deadlineSweep`: one timer
    /// per connection, because cancelling a timer per request scans NIO's timer heap (3.5 % of the CPU in perf).
    private var watched: [PendingPush] = []
    private var deadlineSweepTask: Scheduled<Void>?
    /// How often deadlines are checked: a request gives up at most this much after its deadline.
    static let deadlineSweep = TimeAmount.milliseconds(50)
    /// Requests queued or in flight, read by the pool without hopping.
    let load = Atomic<Int>(0)
    /// False once GOAWAY arrived or the channel closed.
    let isUsable = Atomic<Bool>(true)
    /// The stream limit currently in force (1 until the first answer), read by the pool.
    let streamLimit = Atomic<Int>(1)

    /// Completes when TLS with ALPN `h2` is up, fails when the connection could not be made.
    var established: EventLoopFuture<Void> { establishedPromise.futureResult }

    private init(id: Int, eventLoop: any EventLoop, endpoint: HTTP2Transport.Endpoint, configuration: HTTP2Transport.Configuration, logger: Logger) {
        self.id = id
        self.eventLoop = eventLoop
        self.authority = endpoint.port == 443 ? endpoint.host : "\(endpoint.host):\(endpoint.port)"
        self.configuration = configuration
        self.logger = logger
        self.state = ConnectionStateMachine(localMaxConcurrentStreams: configuration.maxConcurrentStreamsPerConnection)
        self.establishedPromise = eventLoop.makePromise()
    }

    /// The receive window kept open for answers, per stream and per connection.
    private static let receiveWindow = 1 << 20

    /// Opens a connection; the returned connection queues requests until it is established.
    static func connect(
        id: Int, endpoint: HTTP2Transport.Endpoint, tls: NIOSSLContext, eventLoop: any EventLoop,
        configuration: HTTP2Transport.Configuration, logger: Logger
    ) -> APNsConnection {
        var logger = logger
        logger[metadataKey: "apns.connection"] = "\(id)"
        let connection = APNsConnection(id: id, eventLoop: eventLoop, endpoint: endpoint, configuration: configuration, logger: logger)
        let serverHostname = endpoint.host.isIPAddress ? nil : endpoint.host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let proxy = configuration.proxy else {
                        return try connection.addHandlers(to: channel, tls: tls, serverHostname: serverHostname)
                    }
                    // TLS (SNI: the APNs host) and HTTP/2 start once the proxy's tunnel is open.
                    let proxyHandler = ProxyConnectHandler(
                        proxy: proxy, target: endpoint,
                        onTunnel: { channel in try connection.addHandlers(to: channel, tls: tls, serverHostname: serverHostname) },
                        onFailure: { error in connection.connectFailed(error) }
                    )
                    try channel.pipeline.syncOperations.addHandler(proxyHandler)
                    connection.channel = channel  // so the set-up timeout closes it while the proxy answers
                }
            }
        let (host, port) = configuration.proxy.map { ($0.host, $0.port) } ?? (endpoint.host, endpoint.port)
        bootstrap.connect(host: host, port: port).whenComplete { result in
            if case .failure(let error) = result {
                let proxyError = configuration.proxy.map { APNsTransportError(.connectFailed, "HTTP proxy \($0.host):\($0.port) unreachable: \(error)") }
                connection.connectFailed(proxyError ?? error)
            }
        }
        let timeout = TimeAmount(configuration.connectTimeout)
        eventLoop.execute {
            connection.setUpTimeout = eventLoop.scheduleTask(in: timeout) {
                connection.connectFailed(APNsTransportError(.connectFailed, "TLS/HTTP/2 set-up timed out"))
                connection.channel?.close(promise: nil)
            }
        }
        return connection
    }

    /// Adds TLS, HTTP/2 and our handlers to a channel connected to APNs (directly or through a proxy's tunnel).
    private func addHandlers(to channel: any Channel, tls: NIOSSLContext, serverHostname: String?) throws {
        let tlsHandler = try NIOSSLClientHandler(context: tls, serverHostname: serverHostname)
        try channel.pipeline.syncOperations.addHandler(tlsHandler)
        try channel.pipeline.syncOperations.addHandler(FlushCoalescingHandler())
        var settings = HTTP2Settings()
        settings.append(HTTP2Setting(parameter: .enablePush, value: 0))
        settings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: 100))
        settings.append(HTTP2Setting(parameter: .initialWindowSize, value: Self.receiveWindow))
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = settings
        // Our header blocks are built by `Push`; validating every block on both sides is a measurable share of
        // the client's CPU (docs/performance.md). Answers are read field by field (`ConnectionHandler`).
        connectionConfiguration.headerBlockValidation = .disabled
        // APNs is a trusted peer: a server may legitimately reset every stream after answering
        // (RST_STREAM NO_ERROR), so the anti-abuse limit on inbound resets must not close us.
        var streamConfiguration = NIOHTTP2Handler.StreamConfiguration()
        streamConfiguration.streamResetFrameRateLimit.maximumCount = Int(Int32.max)
        streamConfiguration.streamErrorRateLimit.maximumCount = Int(Int32.max)
        let http2 = NIOHTTP2Handler(
            mode: .client, connectionConfiguration: connectionConfiguration, streamConfiguration: streamConfiguration
        )
        try channel.pipeline.syncOperations.addHandler(http2)
        // Error answers carry bodies: without WINDOW_UPDATEs APNs could send only 64 KiB of them.
        try channel.pipeline.syncOperations.addHandler(
            InboundWindowHandler(connectionWindow: Self.receiveWindow, streamWindow: Self.receiveWindow)
        )
        let handler = ConnectionHandler(connection: self, authority: authority)
        try channel.pipeline.syncOperations.addHandler(handler)
        attach(channel: channel, handler: handler)
    }

    /// Queues a request; `completion` is called once, on the event loop, with the answer or a failure
    /// (`ConnectionFailure` when the request must go elsewhere).
    func send(_ request: APNsRequest, deadline: NIODeadline, completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void) {
        load.add(1, ordering: .relaxed)
        let pending = PendingPush(request: request, deadline: deadline) { result in
            self.load.subtract(1, ordering: .relaxed)
            completion(result)
        }
        if eventLoop.inEventLoop {
            enqueue(pending)
        } else {
            eventLoop.execute { self.enqueue(pending) }
        }
    }

    /// Sends a request and waits for its answer. - Throws: `ConnectionFailure` when it must go elsewhere.
    func send(_ request: APNsRequest, deadline: NIODeadline) async throws -> APNsResponse {
        try await withCheckedThrowingContinuation { continuation in
            send(request, deadline: deadline) { continuation.resume(with: $0) }
        }
    }

    /// Whether every stream allowed now is taken (requests beyond it queue).
    var isSaturated: Bool { load.load(ordering: .relaxed) >= streamLimit.load(ordering: .relaxed) }

    private func enqueue(_ pending: PendingPush) {
        watchDeadline(of: pending)
        apply(state.enqueue(pending))
    }

    /// Stops new streams and closes once in-flight ones finish (transport shut down: not a loss).
    func retire() {
        eventLoop.execute {
            self.retiredByUs = true
            self.drain(cause: "retired by the transport")
        }
    }

    // MARK: Events from the handlers (on the event loop)

    private func attach(channel: any Channel, handler: ConnectionHandler) {
        self.channel = channel
        self.handler = handler
    }

    func tlsEstablished(negotiatedProtocol: String?) {
        guard negotiatedProtocol == "h2" else {
            connectFailed(APNsTransportError(.connectFailed, "server did not negotiate h2 (ALPN: \(negotiatedProtocol ?? "none"))"))
            channel?.close(promise: nil)
            return
        }
        guard !setUpFinished else { return }
        logger.debug("APNs connection established")
        setUpFinished = true
        setUpTimeout?.cancel()
        establishedPromise.succeed()
        startPinging()
        apply(state.established())
    }

    func settingsReceived(maxConcurrentStreams: Int?) {
        touch()
        apply(state.settingsReceived(maxConcurrentStreams: maxConcurrentStreams))
    }

    /// The server sent GOAWAY: no new streams; the streams it processed are still answered.
    func goAwayReceived(cause: String) {
        drain(cause: cause)
    }

    /// A connection-level error (TLS, protocol): drain, so answers already on their way are still read.
    func connectionError(_ error: any Error) {
        drain(cause: "error: \(error)")
    }

    /// An answer says this connection is going away (`503 Shutdown`, `IdleTimeout`).
    func answeredGoingAway(_ reason: String) {
        drain(cause: "answered \(reason)")
    }

    private func drain(cause: String) {
        if closeCause == nil { closeCause = cause }
        isUsable.store(false, ordering: .relaxed)
        apply(state.goAway())
        guard drainTimeout == nil, state.state == .draining else { return }
        // Answers still due normally come within milliseconds; a stream that stays silent must not hold its push
        // (and the connection) until the push's own deadline. What is left then fails as unknown: re-sent once.
        drainTimeout = eventLoop.scheduleTask(in: TimeAmount(configuration.drainTimeout)) {
            if self.state.state == .draining {
                self.logger.info("APNs connection still draining; closing", metadata: ["apns.open_streams": "\(self.state.openStreams)"])
                self.channel?.close(promise: nil)
            }
        }
    }

    func pingAcknowledged() {
        pingSentAt = nil
        touch()
    }

    /// The channel closed; `unanswered` streams were still open, `unknown` of them possibly processed.
    func channelClosed(unanswered: Int, unknown: Int) {
        let metadata: Logger.Metadata = [
            "apns.cause": "\(closeCause ?? "closed by the server without GOAWAY")",
            "apns.unanswered": "\(unanswered)", "apns.unknown_outcome": "\(unknown)",
        ]
        if retiredByUs || !setUpFinished {
            logger.debug("APNs connection closed", metadata: metadata)
        } else {
            logger.warning("APNs connection lost", metadata: metadata)
        }
        isUsable.store(false, ordering: .relaxed)
        pingTask?.cancel()
        drainTimeout?.cancel()
        connectFailed(APNsTransportError(.connectFailed, "connection closed during set-up"))
        apply(state.closed())
    }

    /// Set-up failed (connect, proxy, TLS, timeout); only the first call counts.
    func connectFailed(_ error: any Error) {
        guard !setUpFinished else { return }
        setUpFinished = true
        setUpTimeout?.cancel()
        isUsable.store(false, ordering: .relaxed)
        establishedPromise.fail(error)
        apply(state.closed())
    }

    func streamClosed(answered: Bool) {
        touch()
        apply(state.streamClosed(answered: answered))
    }

    private func watchDeadline(of pending: PendingPush) {
        watched.append(pending)
        if deadlineSweepTask == nil {
            deadlineSweepTask = eventLoop.scheduleTask(in: Self.deadlineSweep) { self.sweepDeadlines() }
        }
    }

    /// Fails the requests whose deadline passed; runs while any request is unfinished.
    private func sweepDeadlines() {
        deadlineSweepTask = nil
        let now = NIODeadline.now()
        for pending in watched where pending.deadline <= now { deadlinePassed(pending) }
        watched.removeAll { $0.isFinished }
        if !watched.isEmpty {
            deadlineSweepTask = eventLoop.scheduleTask(in: Self.deadlineSweep) { self.sweepDeadlines() }
        }
    }

    private func deadlinePassed(_ pending: PendingPush) {
        guard !pending.isFinished else { return }
        if state.cancel(where: { $0 === pending }) {
            pending.fail(APNsTransportError(.deadlineExceeded, "no stream became free before the deadline"))
        } else {
            pending.fail(APNsTransportError(.deadlineExceeded, "APNs did not answer before the deadline"))
            handler?.cancel(pending)
        }
    }

    private func touch() { lastActivity = .now() }

    // MARK: Actions

    private func apply(_ action: ConnectionStateMachine<PendingPush>.Action) {
        streamLimit.store(state.streamLimit, ordering: .relaxed)
        switch action {
        case .none:
            break
        case .openStreams(let requests):
            for pending in requests { open(pending) }
        case .requeue(let requests):
            for pending in requests { pending.fail(ConnectionFailure.notSent) }
        case .requeueAndClose(let requests):
            for pending in requests { pending.fail(ConnectionFailure.notSent) }
            channel?.close(promise: nil)
        case .close:
            channel?.close(promise: nil)
        }
    }

    private func open(_ pending: PendingPush) {
        guard let handler, !pending.isFinished else {
            // Timed out while queued: the slot it was given goes back.
            eventLoop.execute { self.apply(self.state.streamClosed(answered: false)) }
            return
        }
        handler.start(pending)
        if !handler.hasStreamIDsLeft { drain(cause: "stream ids exhausted") }
    }

    private func startPinging() {
        let interval = TimeAmount(configuration.pingInterval)
        let pingTimeout = TimeAmount(configuration.pingTimeout)
        pingTask = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let now = NIODeadline.now()
            if let sent = self.pingSentAt {
                if now - sent > pingTimeout {
                    if self.closeCause == nil { self.closeCause = "no PING answer within \(self.configuration.pingTimeout)" }
                    self.channel?.close(promise: nil)
                }
            } else if now - self.lastActivity >= interval {
                self.pingSentAt = now
                self.handler?.ping()
            }
        }
    }
}

extension String {
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
