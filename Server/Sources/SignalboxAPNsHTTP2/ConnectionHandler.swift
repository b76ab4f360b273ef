import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOTLS
import SignalboxAPNs

/// What a `ConnectionHandler` reports to the connection that owns it (`APNsConnection`, or a test's recorder).
protocol ConnectionEvents: AnyObject {
    func tlsEstablished(negotiatedProtocol: String?)
    func settingsReceived(maxConcurrentStreams: Int?)
    func goAwayReceived(cause: String)
    /// A connection-level error; the connection should drain.
    func connectionError(_ error: any Error)
    /// An answer said the connection is going away (`503 Shutdown`, `IdleTimeout`, `UnrelatedKeyIdInToken`).
    func answeredGoingAway(_ reason: String)
    func pingAcknowledged()
    func streamClosed(answered: Bool)
    /// `unanswered` streams were open when the channel closed, `unknown` of them possibly processed.
    func channelClosed(unanswered: Int, unknown: Int)
}

/// Speaks HTTP/2 frames for one APNs connection: writes each push as HEADERS + DATA on its own stream,
/// collects the answers by stream id, and reports connection events (TLS, SETTINGS, GOAWAY, PING, close)
/// to its connection. Streams are plain ids, not child channels: a push costs two frames, not a pipeline.
///
/// A push whose answer was read is never failed afterwards, whatever happens to the connection.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct Stream {
        let pending: PendingPush
        var status: Int?
        var apnsId: String?
        var uniqueId: String?
        var body: ByteBuffer?
        var answered = false
    }

    /// Stream ids left before a connection must be replaced (ids are 31-bit and never reused).
    static let lastUsableStreamID = Int(Int32.max) - 2

    private let connection: any ConnectionEvents
    private let authority: String
    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var nextStreamID = 1
    /// The lowest last-stream-id of the GOAWAYs received: streams above it were not processed.
    private var goAwayLastStreamID: HTTP2StreamID?

    init(connection: any ConnectionEvents, authority: String) {
        self.connection = connection
        self.authority = authority
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Whether new streams can still be opened on this connection.
    var hasStreamIDsLeft: Bool { nextStreamID <= Self.lastUsableStreamID }

    /// Writes a push on a new stream and flushes HTTP/2 at once, so requests end in the order written;
    /// `FlushCoalescingHandler` below turns a tick's flushes into one for TLS and the socket.
    /// A push whose headers HTTP/2 cannot carry fails alone, before a stream is opened.
    func start(_ pending: PendingPush) {
        guard let context, hasStreamIDsLeft else {
            pending.fail(ConnectionFailure.notSent)
            connection.streamClosed(answered: false)
            return
        }
        let push = pending.request.push
        let fields = push.headers
        if let problem = Self.unencodableHeader(fields) {
            pending.fail(ConnectionFailure.malformed(problem))
            connection.streamClosed(answered: false)
            return
        }
        let id = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        streams[id] = Stream(pending: pending)
        pending.streamID = id
        var headers = HPACKHeaders()
        headers.reserveCapacity(12)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":authority", value: authority)
        headers.add(name: ":path", value: push.path, indexing: .nonIndexable)
        headers.add(name: "authorization", value: pending.request.token.bearer)
        for header in fields {
            headers.add(name: header.name, value: header.value, indexing: header.indexable ? .indexable : .nonIndexable)
        }
        var body = context.channel.allocator.buffer(capacity: push.payload.count)
        body.writeBytes(push.payload)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        context.flush()
    }

    /// Why a push's headers cannot go on the wire (RFC 9113 §8.2.1: no NUL, CR or LF in a value, no
    /// whitespace at its ends), or `nil`. Header validation of NIOHTTP2 is off for speed, so this is the check:
    /// a server answers a bad field with a protocol error that may cost the whole connection.
    static func unencodableHeader(_ headers: [Push.Header]) -> String? {
        for header in headers {
            let bytes = header.value.utf8
            if bytes.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) {
                return "header \(header.name) holds NUL, CR or LF"
            }
            if let first = bytes.first, let last = bytes.last, first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 {
                return "header \(header.name) starts or ends with whitespace"
            }
        }
        return nil
    }

    /// Abandons a push's stream (its deadline passed) with RST_STREAM CANCEL.
    func cancel(_ pending: PendingPush) {
        guard let context, let id = pending.streamID, streams[id] != nil else { return }
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
    }

    /// Sends a PING.
    func ping() {
        context?.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.streamID == .rootStream {
            rootFrame(frame.payload)
            return
        }
        // The stream is updated in place; its push completes only after that access ends, because the completion may
        // start the next push on this handler.
        guard let index = streams.index(forKey: frame.streamID) else { return }
        let endStream: Bool
        switch frame.payload {
        case .headers(let payload):
            if streams.values[index].status == nil {
                streams.values[index].status = payload.headers.first(name: ":status").flatMap { Int($0) }
                streams.values[index].apnsId = payload.headers.first(name: "apns-id")
                streams.values[index].uniqueId = payload.headers.first(name: "apns-unique-id")
            }
            endStream = payload.endStream
        case .data(let payload):
            if case .byteBuffer(var chunk) = payload.data {
                if streams.values[index].body == nil { streams.values[index].body = chunk } else { streams.values[index].body!.writeBuffer(&chunk) }
            }
            endStream = payload.endStream
        default:
            return
        }
        if endStream, let (pending, answer) = Self.finish(&streams.values[index]) { complete(pending, answer) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            if let stream = streams.removeValue(forKey: closed.streamID) {
                if !stream.answered { stream.pending.fail(failure(of: closed.streamID, resetWith: closed.reason)) }
                connection.streamClosed(answered: stream.answered)
            }
        case TLSUserEvent.handshakeCompleted(let negotiatedProtocol):
            connection.tlsEstablished(negotiatedProtocol: negotiatedProtocol)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let open = streams
        streams.removeAll()
        var unknown = 0
        for (id, stream) in open where !stream.answered {
            let failure = failure(of: id, resetWith: nil)
            if case .unknown = failure { unknown += 1 }
            stream.pending.fail(failure)
        }
        connection.channelClosed(unanswered: open.count { !$0.value.answered }, unknown: unknown)
        context.fireChannelInactive()
    }

    /// What an unanswered stream's end means. NIOHTTP2 hands a GOAWAY frame on before it closes the streams
    /// above its last-stream-id, so `goAwayLastStreamID` is known when those closures arrive.
    private func failure(of id: HTTP2StreamID, resetWith code: HTTP2ErrorCode?) -> ConnectionFailure {
        if let last = goAwayLastStreamID, id > last { return .refused }
        switch code {
        case .refusedStream?: return .refused
        case .protocolError?: return .malformed("APNs reset the stream as malformed (PROTOCOL_ERROR)")
        case let code?: return .unknown("stream reset (\(code)) before the answer")
        case nil: return .unknown("connection closed before the answer")
        }
    }

    /// Stream-level errors stay with their stream; anything else retires the connection gracefully: answers
    /// still due on it are read, nothing new is written, and it closes when drained.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream || error is NIOHTTP2Errors.StreamError { return }
        connection.connectionError(error)
    }

    private func rootFrame(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .settings(.settings(let settings)):
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }.map { Int($0.value) }
            connection.settingsReceived(maxConcurrentStreams: limit)
        case .goAway(let lastStreamID, let errorCode, let debugData):
            let last = min(lastStreamID, goAwayLastStreamID ?? lastStreamID)
            goAwayLastStreamID = last
            let reason = debugData.flatMap { buffer in
                try? JSONDecoder().decode(APNsResponse.ErrorBody.self, from: Data(buffer.readableBytesView)).reason
            }
            connection.goAwayReceived(cause: "GOAWAY \(reason ?? "without reason") (\(errorCode), last stream \(lastStreamID))")
            refuseStreams(above: last)
        case .ping(_, ack: true):
            connection.pingAcknowledged()
        default:
            break
        }
    }

    /// Streams above a GOAWAY's last-stream-id were not processed: they go elsewhere now. NIOHTTP2 closes only
    /// the streams it created; one whose HEADERS it still buffers (channel not writable, stream limit) would
    /// otherwise wait for its deadline, and fail the connection when NIOHTTP2 tries to open it after the GOAWAY.
    private func refuseStreams(above last: HTTP2StreamID) {
        for (id, stream) in streams where id > last && !stream.answered {
            streams.removeValue(forKey: id)
            stream.pending.fail(ConnectionFailure.refused)
            connection.streamClosed(answered: false)
        }
    }

    /// Marks the stream answered and returns its push with what to complete it with (an answer, or a failure when
    /// the stream ended without `:status`); `nil` if it was answered already.
    private static func finish(_ stream: inout Stream) -> (PendingPush, Result<APNsResponse, ConnectionFailure>)? {
        guard !stream.answered else { return nil }
        guard let status = stream.status else { return (stream.pending, .failure(.unknown("answer without :status"))) }
        stream.answered = true
        let bytes = stream.body.map { Array($0.readableBytesView) } ?? []
        return (stream.pending, .success(APNsResponse(status: status, apnsId: stream.apnsId, uniqueId: stream.uniqueId, body: bytes)))
    }

    private func complete(_ pending: PendingPush, _ answer: Result<APNsResponse, ConnectionFailure>) {
        switch answer {
        case .failure(let failure):
            pending.fail(failure)
        case .success(let response):
            // These answers say the connection itself is going away: no new stream should be put on it.
            if let reason = response.reason, reason == .shutdown || reason == .idleTimeout || reason == .unrelatedKeyIdInToken {
                connection.answeredGoingAway(reason.rawValue)
            }
            pending.succeed(response)
        }
    }
}
