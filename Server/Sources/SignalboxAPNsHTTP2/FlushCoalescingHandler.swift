import NIOCore

/// Sits between TLS and `NIOHTTP2Handler` and turns the flushes of one event-loop tick into one, at the tick's end.
///
/// `ConnectionHandler` flushes HTTP/2 after every push because `NIOHTTP2Handler` releases the DATA frames written
/// since its last flush in the order of a hash set of stream ids. With one HTTP/2 flush per tick a tick's requests
/// would end in random order, APNs would answer them so, and both sides would remove streams from the middle of
/// their sorted stream maps (docs/performance.md). Flushed one push at a time, requests end in the order written;
/// this handler keeps TLS records and `write(2)`s to one per tick.
final class FlushCoalescingHandler: ChannelOutboundHandler {
    typealias OutboundIn = IOData

    private var context: ChannelHandlerContext?
    private var flushScheduled = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func flush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            guard handler.flushScheduled else { return }
            handler.flushScheduled = false
            handler.context?.flush()
        }
    }

    /// What was written before a close still goes out first (a GOAWAY, a last RST_STREAM).
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if flushScheduled {
            flushScheduled = false
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }
}
