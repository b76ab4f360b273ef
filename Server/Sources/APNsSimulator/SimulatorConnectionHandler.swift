import Foundation
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import SignalboxAPNs

/// Plays APNs on one HTTP/2 connection: collects each stream's headers and whole body, applies the
/// next fault, validates, answers, and runs the SETTINGS and GOAWAY choreography.
final class SimulatorConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct Stream {
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var complete = false
    }

    private let ledger: Ledger
    private let configuration: APNsSimulator.Configuration
    private let logger: Logger
    private var connectionId = 0
    private var auth = ConnectionAuth()
    private var streams: [HTTP2StreamID: Stream] = [:]
    private var mostStreams = 0
    private var raisedStreamLimit = false
    private var lastStreamID: HTTP2StreamID?
    /// Requests completed during this read burst, answered together at read-complete.
    private var ready: [(id: HTTP2StreamID, request: ReceivedRequest)] = []
    private var needsFlush = false
    private var isOpen = true
    private var closeScheduled = false
    /// Whether the connection keeps reading for `drainTime` after its GOAWAY before closing.
    private var gracefulClose = true

    init(ledger: Ledger, configuration: APNsSimulator.Configuration, logger: Logger) {
        self.ledger = ledger
        self.configuration = configuration
        self.logger = logger
    }

    func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        streams.removeAll()
        if connectionId != 0 { ledger.connectionClosed(connectionId) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Counted at its first frame (the client's SETTINGS), once TLS is done: a bare connect is not a client. In a
        // parallel run another test's transport may still retry a port the system has since given to this simulator.
        if connectionId == 0 { connectionId = ledger.connectionOpened(context.channel) }
        let frame = unwrapInboundIn(data)
        let id = frame.streamID
        switch frame.payload {
        case .headers(let payload):
            if streams[id] == nil {
                streams[id] = Stream(headers: payload.headers.map { ($0.name, $0.value) })
                if streams.count > mostStreams {
                    mostStreams = streams.count
                    ledger.observe(concurrentStreams: mostStreams)
                }
            }
            if payload.endStream { complete(id, context: context) }
        case .data(let payload):
            if case .byteBuffer(let bytes) = payload.data, var stream = streams[id] {
                // Keep one byte past APNs's limit: enough to answer 413 without holding a huge body.
                let room = PushType.controls.maximumPayloadSize + 1 - stream.body.count
                if room > 0 { stream.body += bytes.readableBytesView.prefix(room) }
                streams[id] = stream
            }
            if payload.endStream { complete(id, context: context) }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        let batch = ready
        ready.removeAll(keepingCapacity: true)
        for (id, request) in batch where isOpen { process(id, request, context: context) }
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            streams.removeValue(forKey: closed.streamID)
            closeIfDrained(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A stream-level error ends that stream only, as on APNs; after our GOAWAY, frames the client sent before it
    /// read the GOAWAY are ignored (RFC 9113 §6.8). Closing here would lose answers still due on the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream || error is NIOHTTP2Errors.StreamError { return }
        if lastStreamID != nil {
            logger.debug("simulator connection error while draining", metadata: ["simulator.connection": "\(connectionId)", "error": "\(error)"])
            return
        }
        logger.debug("simulator connection error", metadata: ["simulator.connection": "\(connectionId)", "error": "\(error)"])
        context.close(promise: nil)
    }

    /// The request on `id` is whole; it is answered when the read burst ends, so streams overlap as on APNs.
    private func complete(_ id: HTTP2StreamID, context: ChannelHandlerContext) {
        guard var stream = streams[id], !stream.complete else { return }
        stream.complete = true
        streams[id] = stream
        ready.append((id, ReceivedRequest(headers: stream.headers, body: stream.body)))
    }

    /// Applies the next fault to a whole request, then answers it.
    private func process(_ id: HTTP2StreamID, _ request: ReceivedRequest, context: ChannelHandlerContext) {
        if let lastStreamID {
            // After our GOAWAY: a stream above it is not processed (the client sends it elsewhere); one at or below
            // it was promised an answer, so no fault applies to it.
            if id <= lastStreamID { answer(id, request, context: context) }
            return
        }
        switch ledger.nextFault() {
        case .reset:
            // Answers to the burst's earlier requests go out first, as from a server that answers each request as
            // it processes it; the client may still lose them (unread data when the reset arrives).
            flushIfNeeded(context: context)
            isOpen = false
            context.close(promise: nil)
        case .latency(let delay) where delay > .zero:
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                let (handler, context) = loopBound.value
                guard handler.isOpen, handler.streams[id] != nil else { return }
                handler.answer(id, request, context: context)
                handler.flushIfNeeded(context: context)
            }
        case .status(let status, let reason):
            respond(id, status: status, reason: APNsReason(rawValue: reason), apnsId: nil, context: context)
            ledger.record(.rejected(status: status, reason: APNsReason(rawValue: reason)))
        case .shutdown:
            respond(id, status: 503, reason: .shutdown, apnsId: nil, context: context)
            ledger.record(.rejected(status: 503, reason: .shutdown))
            goAway(lastStreamID: id, reason: .shutdown, context: context)
        case .goAway(let graceful):
            // This request and any later one are not processed; the previous stream is the last one that is.
            gracefulClose = graceful
            goAway(lastStreamID: HTTP2StreamID(max(0, Int(id) - 2)), reason: .shutdown, context: context)
        case .latency, nil:
            answer(id, request, context: context)
        }
    }

    /// Validates the request, records the verdict and writes the answer.
    private func answer(_ id: HTTP2StreamID, _ request: ReceivedRequest, context: ChannelHandlerContext) {
        let verdict = ledger.validator.validate(request, connection: &auth, connectionId: connectionId, now: configuration.now())
        ledger.record(verdict)
        switch verdict {
        case .accepted(let push):
            respond(id, status: 200, reason: nil, apnsId: push.apnsId, context: context)
            if !raisedStreamLimit {
                raisedStreamLimit = true
                let setting = HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.maxConcurrentStreams)
                context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([setting])))), promise: nil)
            }
        case .rejected(let status, let reason, let timestamp):
            let apnsId = request.headers.first { $0.name == "apns-id" }?.value
            respond(id, status: status, reason: reason, timestamp: timestamp, apnsId: apnsId, context: context)
        }
    }

    private func respond(
        _ id: HTTP2StreamID, status: Int, reason: APNsReason?, timestamp: Date? = nil, apnsId: String?,
        context: ChannelHandlerContext
    ) {
        var headers: HPACKHeaders = [":status": String(status), "apns-id": apnsId ?? UUID().uuidString.lowercased()]
        needsFlush = true
        guard let reason else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
            return
        }
        headers.add(name: "content-type", value: "application/json")
        let body = ErrorBody(reason: reason.rawValue, timestamp: timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) })
        let buffer = context.channel.allocator.buffer(bytes: (try? JSONEncoder().encode(body)) ?? Data())
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))), promise: nil)
    }

    /// Sends GOAWAY: streams after `lastStreamID` are not processed; the connection closes once the rest are answered.
    private func goAway(lastStreamID: HTTP2StreamID, reason: APNsReason?, context: ChannelHandlerContext) {
        guard self.lastStreamID == nil else { return }
        self.lastStreamID = lastStreamID
        let debugData = reason.flatMap { try? JSONEncoder().encode(ErrorBody(reason: $0.rawValue, timestamp: nil)) }
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData.map { context.channel.allocator.buffer(bytes: $0) })
        )
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
        ledger.goAwaySent()
        closeIfDrained(context: context)
    }

    private func closeIfDrained(context: ChannelHandlerContext) {
        guard let lastStreamID, isOpen, !closeScheduled, !streams.keys.contains(where: { $0 <= lastStreamID }) else { return }
        closeScheduled = true
        flushIfNeeded(context: context)
        let channel = context.channel
        guard gracefulClose else {
            channel.close(promise: nil)
            return
        }
        // Keep reading a while, as a graceful server does; a draining client usually closes first.
        context.eventLoop.scheduleTask(in: TimeAmount(configuration.drainTime)) {
            channel.close(promise: nil)
        }
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
    }

    private struct ErrorBody: Encodable {
        var reason: String
        var timestamp: Int64?
    }
}
