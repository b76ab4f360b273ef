import DequeModule

/// The life of one APNs connection as a value type: which queued requests may open a stream now.
///
/// Rules (`apns.md` §4.2–4.3): until the first answer arrives only one stream may be open; after that, up to
/// the lower of the server's `SETTINGS_MAX_CONCURRENT_STREAMS` and our own cap. After GOAWAY or close no new
/// stream opens and queued requests go back to the pool to be sent on another connection.
struct ConnectionStateMachine<Request> {
    enum State: Equatable {
        /// TLS and HTTP/2 are being set up; requests queue.
        case starting
        /// Streams may open.
        case active
        /// GOAWAY received or sent: no new streams; in-flight ones finish.
        case draining
        /// The channel is closed.
        case closed
    }

    /// What the I/O shell must do next.
    enum Action {
        case none
        /// Open a stream for each of these requests, in order.
        case openStreams([Request])
        /// Give these requests back to the pool: they never reached the server.
        case requeue([Request])
        /// Give these back, then close the channel: nothing is in flight any more.
        case requeueAndClose([Request])
        /// Close the channel (draining finished).
        case close
    }

    private(set) var state: State = .starting
    private(set) var openStreams = 0
    private(set) var queue = Deque<Request>()
    /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`, until it says otherwise unlimited (HTTP/2 default).
    private(set) var remoteMaxConcurrentStreams = Int.max
    private(set) var firstAnswerReceived = false
    /// Our own cap on concurrent streams.
    let localMaxConcurrentStreams: Int

    init(localMaxConcurrentStreams: Int) {
        self.localMaxConcurrentStreams = max(1, localMaxConcurrentStreams)
    }

    /// How many streams may be open at once right now.
    var streamLimit: Int {
        guard firstAnswerReceived else { return 1 }
        return max(1, min(remoteMaxConcurrentStreams, localMaxConcurrentStreams))
    }

    /// Whether new requests may still be given to this connection.
    var acceptsRequests: Bool { state == .starting || state == .active }

    /// Requests waiting plus streams in flight.
    var load: Int { openStreams + queue.count }

    /// TLS and HTTP/2 are up.
    mutating func established() -> Action {
        guard state == .starting else { return .none }
        state = .active
        return drain()
    }

    /// A request arrives for this connection.
    mutating func enqueue(_ request: Request) -> Action {
        guard acceptsRequests else { return .requeue([request]) }
        queue.append(request)
        return state == .active ? drain() : .none
    }

    /// The server sent SETTINGS (the value is `nil` when MAX_CONCURRENT_STREAMS was not among them).
    mutating func settingsReceived(maxConcurrentStreams: Int?) -> Action {
        if let maxConcurrentStreams { remoteMaxConcurrentStreams = maxConcurrentStreams }
        return state == .active ? drain() : .none
    }

    /// A stream ended; `answered` tells whether a response arrived on it.
    mutating func streamClosed(answered: Bool) -> Action {
        openStreams -= 1
        if answered { firstAnswerReceived = true }
        switch state {
        case .active: return drain()
        case .draining: return openStreams == 0 ? .close : .none
        case .starting, .closed: return .none
        }
    }

    /// The server sent GOAWAY (or we decided to retire the connection).
    mutating func goAway() -> Action {
        guard state == .starting || state == .active else { return .none }
        state = .draining
        let waiting = Array(queue)
        queue.removeAll()
        switch (waiting.isEmpty, openStreams == 0) {
        case (true, true): return .close
        case (true, false): return .none
        case (false, true): return .requeueAndClose(waiting)
        case (false, false): return .requeue(waiting)
        }
    }

    /// The channel closed: waiting requests go elsewhere (in-flight streams fail on their own).
    mutating func closed() -> Action {
        state = .closed
        let waiting = Array(queue)
        queue.removeAll()
        return waiting.isEmpty ? .none : .requeue(waiting)
    }

    /// Removes a queued request that gave up (deadline); returns whether it was still queued.
    mutating func cancel(where matches: (Request) -> Bool) -> Bool {
        guard let index = queue.firstIndex(where: matches) else { return false }
        queue.remove(at: index)
        return true
    }

    private mutating func drain() -> Action {
        var ready: [Request] = []
        while openStreams < streamLimit, let next = queue.popFirst() {
            openStreams += 1
            ready.append(next)
        }
        return ready.isEmpty ? .none : .openStreams(ready)
    }
}
