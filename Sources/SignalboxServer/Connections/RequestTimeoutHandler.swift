import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose peer is too slow to send a request head or body, or idle too long
/// (``RequestTimeouts``). Sits after the HTTP decoder; learns of raw bytes from ``ReadActivityHandler``.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var timeouts: RequestTimeouts
    private var timer: Scheduled<Void>?
    private let logger: Logger

    init(configuration: ConnectionConfiguration, logger: Logger) {
        timeouts = RequestTimeouts(configuration: configuration)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        perform(timeouts.opened(), context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        perform(.cancel, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(.cancel, context: context)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: perform(timeouts.headReceived(), context: context)
        case .body: break
        case .end: perform(timeouts.endReceived(), context: context)
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ReadActivityHandler.BytesReceived {
            perform(timeouts.bytesReceived(), context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { perform(timeouts.responseEnded(), context: context) }
        context.write(data, promise: promise)
    }

    private func perform(_ action: RequestTimeouts.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .cancel:
            timer?.cancel()
            timer = nil
        case .arm(let duration):
            timer?.cancel()
            let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
                timer = nil
                guard let reason = timeouts.expired() else { return }
                logger.debug("closing connection", metadata: ["connection.close_reason": "\(reason)"])
                context.close(promise: nil)
            }
        }
    }
}

/// Sits before the HTTP decoder and tells ``RequestTimeoutHandler`` that bytes arrived, so the header timeout
/// of a keep-alive connection's next request starts at its first byte.
final class ReadActivityHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    struct BytesReceived {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(BytesReceived())
        context.fireChannelRead(data)
    }
}
