/// When a connection must have made progress, as a pure state machine: the handler reports what the peer and
/// the server did, and arms or cancels its one timer as told.
///
/// - Waiting for a request head: `headerTimeout`, from the connection's opening or from the first byte of a
///   later request (a keep-alive connection waiting for its next request is idle, not reading a head).
/// - Reading a body: `bodyTimeout` from the head.
/// - Responding: no limit here (the routes have their own deadlines).
/// - Idle after a response, with nothing in flight: `idleTimeout`.
struct RequestTimeouts {
    enum Phase: Equatable {
        case awaitingHead, readingBody, responding, idle
    }

    enum Action: Equatable {
        case arm(Duration)
        case cancel
        case none
    }

    let configuration: ConnectionConfiguration
    private(set) var phase = Phase.awaitingHead
    /// Requests whose head arrived and whose response has not ended (HTTP/1.1 pipelining allows several).
    private var inFlight = 0

    init(configuration: ConnectionConfiguration) { self.configuration = configuration }

    func opened() -> Action { .arm(configuration.headerTimeout) }

    mutating func bytesReceived() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingHead
        return .arm(configuration.headerTimeout)
    }

    mutating func headReceived() -> Action {
        inFlight += 1
        phase = .readingBody
        return .arm(configuration.bodyTimeout)
    }

    mutating func endReceived() -> Action {
        // Answered before its body was read (a 401, say), then drained: nothing left to wait for but the next request.
        if inFlight == 0 {
            phase = .idle
            return .arm(configuration.idleTimeout)
        }
        phase = .responding
        return .cancel
    }

    mutating func responseEnded() -> Action {
        inFlight = max(0, inFlight - 1)
        guard phase == .responding, inFlight == 0 else { return .none }
        phase = .idle
        return .arm(configuration.idleTimeout)
    }

    /// The timer fired: what it cut short, or `nil` when nothing is timed any more.
    func expired() -> String? {
        switch phase {
        case .awaitingHead: "header timeout"
        case .readingBody: "body timeout"
        case .idle: "idle timeout"
        case .responding: nil
        }
    }
}
