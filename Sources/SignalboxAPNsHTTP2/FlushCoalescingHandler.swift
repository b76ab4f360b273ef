import NIOCore

/// Turns the many flushes of one event-loop tick into one: every HTTP/2 stream flushes its HEADERS and DATA,
/// and without this each push would cost its own TLS record and `write(2)`.
///
/// Sits between the TLS handler and the HTTP/2 handler; the first flush of a tick schedules the real flush at
/// the end of the event loop's current task batch.
final class FlushCoalescingHandler: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer

    private var flushPending = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = loopBound.value
            handler.flushPending = false
            context.flush()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if flushPending {
            flushPending = false
            context.flush()
        }
    }
}
