@testable import SignalboxServer
import Testing

/// The timeout state machine, without sockets.
@Suite struct RequestTimeoutsTests {
    static let configuration: ConnectionConfiguration = {
        var configuration = ConnectionConfiguration()
        configuration.headerTimeout = .seconds(1)
        configuration.bodyTimeout = .seconds(2)
        configuration.idleTimeout = .seconds(3)
        return configuration
    }()

    @Test func keepAliveRequestCycle() {
        var timeouts = RequestTimeouts(configuration: Self.configuration)
        #expect(timeouts.opened() == .arm(.seconds(1)))
        #expect(timeouts.expired() == "header timeout")
        #expect(timeouts.bytesReceived() == .none)
        #expect(timeouts.headReceived() == .arm(.seconds(2)))
        #expect(timeouts.expired() == "body timeout")
        #expect(timeouts.endReceived() == .cancel)
        #expect(timeouts.expired() == nil, "the server's own work is not timed here")
        #expect(timeouts.responseEnded() == .arm(.seconds(3)))
        #expect(timeouts.expired() == "idle timeout")
        #expect(timeouts.bytesReceived() == .arm(.seconds(1)), "the next request's head is timed from its first byte")
        #expect(timeouts.expired() == "header timeout")
    }

    @Test func answeredBeforeItsBodyThenDrainedGoesIdle() {
        var timeouts = RequestTimeouts(configuration: Self.configuration)
        _ = timeouts.headReceived()
        #expect(timeouts.responseEnded() == .none, "the body is still being read: its timeout stays")
        #expect(timeouts.expired() == "body timeout")
        #expect(timeouts.endReceived() == .arm(.seconds(3)))
        #expect(timeouts.expired() == "idle timeout")
    }

    @Test func pipelinedRequestsStayTimedUntilTheLastResponse() {
        var timeouts = RequestTimeouts(configuration: Self.configuration)
        _ = timeouts.headReceived()
        _ = timeouts.endReceived()
        #expect(timeouts.headReceived() == .arm(.seconds(2)))
        #expect(timeouts.responseEnded() == .none)
        #expect(timeouts.endReceived() == .cancel)
        #expect(timeouts.responseEnded() == .arm(.seconds(3)))
    }
}
