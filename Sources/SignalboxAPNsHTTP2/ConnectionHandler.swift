import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOTLS
import SignalboxAPNs

/// Speaks HTTP/2 frames for one APNs connection: writes each push as HEADERS + DATA on its own stream,
/// collects the answers by stream id, and reports connection events (TLS, SETTINGS, GOAWAY, PING, close)
/// to its `APNsConnection`. Streams are plain ids, not child channels: a push costs two frames, not a pipeline.
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

    private let connection: APNsConnection
    private let authority: String
    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var nextStreamID = 1
    private var flushScheduled = false

    init(connection: APNsConnection, authority: String) {
        self.connection = connection
        self.authority = authority
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Whether new streams can still be opened on this connection.
    var hasStreamIDsLeft: Bool { nextStreamID <= Self.lastUsableStreamID }

    /// Writes a push on a new stream; one flush per event-loop tick carries every push written in it.
    func start(_ pending: PendingPush) {
        guard let context, hasStreamIDsLeft else {
            pending.fail(ConnectionFailure.notSent)
            connection.streamClosed(answered: false)
            return
        }
        let id = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        streams[id] = Stream(pending: pending)
        pending.streamID = id
        let push = pending.request.push
        var headers = HPACKHeaders()
        headers.reserveCapacity(12)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":authority", value: authority)
        headers.add(name: ":path", value: push.path, indexing: .nonIndexable)
        headers.add(name: "authorization", value: pending.request.token.bearer)
        for header in push.headers {
            headers.add(name: header.name, value: header.value, indexing: header.indexable ? .indexable : .nonIndexable)
        }
        var body = context.channel.allocator.buffer(capacity: push.payload.count)
        body.writeBytes(push.payload)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        scheduleFlush(context)
    }

    /// Flushes once at the end of this tick's work: answers read in one batch start many pushes, and one
    /// flush carries them all in as few TLS records and `write(2)`s as possible.
    private func scheduleFlush(_ context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            handler.context?.flush()
        }
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
        guard var stream = streams[frame.streamID] else { return }
        switch frame.payload {
        case .headers(let payload):
            if stream.status == nil {
                stream.status = payload.headers.first(name: ":status").flatMap { Int($0) }
                stream.apnsId = payload.headers.first(name: "apns-id")
                stream.uniqueId = payload.headers.first(name: "apns-unique-id")
            }
            if payload.endStream { finish(&stream) }
        case .data(let payload):
            if case .byteBuffer(var chunk) = payload.data {
                if stream.body == nil { stream.body = chunk } else { stream.body!.writeBuffer(&chunk) }
            }
            if payload.endStream { finish(&stream) }
        default:
            break
        }
        streams[frame.streamID] = stream
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            if let stream = streams.removeValue(forKey: closed.streamID) {
                if !stream.answered {
                    stream.pending.fail(ConnectionFailure.lost("stream closed (\(closed.reason.map { "\($0)" } ?? "no error")) before the answer"))
                }
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
        for stream in open.values where !stream.answered {
            stream.pending.fail(ConnectionFailure.lost("connection closed before the answer"))
        }
        connection.channelClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream { return }
        connection.connectionError(error)
        context.close(promise: nil)
    }

    private func rootFrame(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .settings(.settings(let settings)):
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }.map { Int($0.value) }
            connection.settingsReceived(maxConcurrentStreams: limit)
        case .goAway(_, _, let debugData):
            let reason = debugData.flatMap { buffer in
                try? JSONDecoder().decode(APNsResponse.ErrorBody.self, from: Data(buffer.readableBytesView)).reason
            }
            connection.goAwayReceived(reason: reason ?? "no reason")
        case .ping(_, ack: true):
            connection.pingAcknowledged()
        default:
            break
        }
    }

    private func finish(_ stream: inout Stream) {
        guard !stream.answered else { return }
        guard let status = stream.status else {
            stream.pending.fail(ConnectionFailure.lost("answer without :status"))
            return
        }
        stream.answered = true
        let bytes = stream.body.map { Array($0.readableBytesView) } ?? []
        stream.pending.succeed(APNsResponse(status: status, apnsId: stream.apnsId, uniqueId: stream.uniqueId, body: bytes))
    }
}
