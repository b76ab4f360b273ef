import NIOCore
import NIOHTTP2
import SignalboxAPNs

/// One request waiting for or travelling on a connection.
///
/// `@unchecked Sendable`: created, mutated and completed only on its connection's event loop; NIO's
/// `@Sendable` callbacks that capture it all run there.
final class PendingPush: @unchecked Sendable {
    let request: APNsRequest
    let deadline: NIODeadline
    /// The stream carrying it, once opened.
    var streamID: HTTP2StreamID?
    private(set) var isFinished = false
    /// Called once, on the event loop: a closure rather than a promise, whose future and callbacks cost a few
    /// allocations per push.
    private let completion: @Sendable (Result<APNsResponse, any Error>) -> Void

    init(request: APNsRequest, deadline: NIODeadline, completion: @escaping @Sendable (Result<APNsResponse, any Error>) -> Void) {
        self.request = request
        self.deadline = deadline
        self.completion = completion
    }

    func succeed(_ response: APNsResponse) {
        guard !isFinished else { return }
        isFinished = true
        completion(.success(response))
    }

    func fail(_ error: any Error) {
        guard !isFinished else { return }
        isFinished = true
        completion(.failure(error))
    }
}

/// Why a connection gave a request back without an answer, and so whether the pool may send it again.
enum ConnectionFailure: Error, Equatable {
    /// The request never reached the server (queued when GOAWAY or close came): send it elsewhere.
    case notSent
    /// The server did not process it (stream above GOAWAY's last-stream-id, or `REFUSED_STREAM`): send it
    /// elsewhere without counting an attempt.
    case refused
    /// It was written and no answer came (reset, connection lost): APNs may or may not have processed it.
    /// The pool sends it once more, no more, so a lost answer costs at most one duplicate.
    case unknown(String)
    /// It cannot be sent as it is (a header value HTTP/2 forbids, or a stream the server reset as
    /// malformed): it fails alone, and the connection stays up for the others.
    case malformed(String)
}
