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
    private var timer: (task: Scheduled<Void>, fireAt: NIODeadline)?
    /// When the current phase times out; `nil` while nothing is timed.
    private var deadline: NIODeadline?
    private let logger: Logger
    /// How long the connection may stay unwritable: a peer that pipelines requests and never reads the answers
    /// would otherwise hold its slot for good (the request timeouts stop while a response is written).
    private let writeStallTimeout: Duration
    private var writeStall: Scheduled<Void>?

    init(configuration: ConnectionConfiguration, logger: Logger) {
        timeouts = RequestTimeouts(configuration: configuration)
        writeStallTimeout = configuration.bodyTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        perform(timeouts.opened(), context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func stop() {
        deadline = nil
        timer?.task.cancel()
        timer = nil
        writeStall?.cancel()
        writeStall = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeStall?.cancel()
            writeStall = nil
        } else if writeStall == nil {
            writeStall = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(writeStallTimeout)) { [self] in
                logger.debug("closing connection", metadata: ["connection.close_reason": "peer not reading"])
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
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

    /// Keeps at most one scheduled task and moves a deadline instead of rescheduling on every request: a task
    /// that fires before the deadline schedules itself again, and only a deadline earlier than the task's
    /// (a header timeout after an idle one) replaces it.
    private func perform(_ action: RequestTimeouts.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .cancel:
            deadline = nil
        case .arm(let duration):
            let next = NIODeadline.now() + TimeAmount(duration)
            deadline = next
            if let timer, timer.fireAt <= next { return }
            schedule(at: next, context: context)
        }
    }

    private func schedule(at time: NIODeadline, context: ChannelHandlerContext) {
        timer?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in
            timer = nil
            guard let deadline else { return }
            if deadline > NIODeadline.now() { return schedule(at: deadline, context: context) }
            guard let reason = timeouts.expired() else { return }
            logger.debug("closing connection", metadata: ["connection.close_reason": "\(reason)"])
            context.close(promise: nil)
        }
        timer = (task, time)
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
