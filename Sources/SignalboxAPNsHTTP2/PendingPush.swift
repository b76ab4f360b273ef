import NIOCore
import NIOHTTP2
import SignalboxAPNs

/// One request waiting for or travelling on a connection.
///
/// `@unchecked Sendable`: created, mutated and completed only on its connection's event loop; NIO's
/// `@Sendable` callbacks that capture it all run there.
final class PendingPush: @unchecked Sendable {
    let request: APNsRequest
    let promise: EventLoopPromise<APNsResponse>
    let deadline: NIODeadline
    /// The stream carrying it, once opened.
    var streamID: HTTP2StreamID?
    private(set) var isFinished = false

    init(request: APNsRequest, promise: EventLoopPromise<APNsResponse>, deadline: NIODeadline) {
        self.request = request
        self.promise = promise
        self.deadline = deadline
    }

    func succeed(_ response: APNsResponse) {
        guard !isFinished else { return }
        isFinished = true
        promise.succeed(response)
    }

    func fail(_ error: any Error) {
        guard !isFinished else { return }
        isFinished = true
        promise.fail(error)
    }
}

/// Why a connection gave a request back without an answer; the pool sends it on another connection.
enum ConnectionFailure: Error, Equatable {
    /// The request never reached the server (queued when GOAWAY or close came).
    case notSent
    /// The stream ended without an answer (reset, GOAWAY above last-stream-id, connection lost).
    case lost(String)
}
