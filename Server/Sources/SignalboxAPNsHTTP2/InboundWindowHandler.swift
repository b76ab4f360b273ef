import NIOCore
import NIOHTTP2

/// Hands the peer back the HTTP/2 receive window that inbound DATA used up, with WINDOW_UPDATE frames
/// (used by the transport and by the APNs simulator).
///
/// `NIOHTTP2Handler` only reports window changes (`NIOHTTP2WindowUpdatedEvent`); sending WINDOW_UPDATE is the
/// stream multiplexer's job, and we use none. Without this handler the peer stops sending DATA once 64 KiB
/// arrived on a connection (SETTINGS_INITIAL_WINDOW_SIZE does not touch the connection window) and every later
/// stream stalls. Sits right after `NIOHTTP2Handler`; like NIO's own window manager it tops a window up to its
/// target once half of it is used, and leaves half-closed streams alone.
public final class InboundWindowHandler: ChannelInboundHandler {
    public typealias InboundIn = HTTP2Frame
    public typealias InboundOut = HTTP2Frame
    public typealias OutboundOut = HTTP2Frame

    private let connectionWindow: Int
    private let streamWindow: Int
    private var needsFlush = false

    /// - Parameters:
    ///   - connectionWindow: the connection window to keep open (more than the initial 65,535 raises it).
    ///   - streamWindow: the stream window to keep open, normally our SETTINGS_INITIAL_WINDOW_SIZE.
    public init(connectionWindow: Int, streamWindow: Int) {
        self.connectionWindow = connectionWindow
        self.streamWindow = streamWindow
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let update = event as? NIOHTTP2WindowUpdatedEvent, let size = update.inboundWindowSize {
            let target = update.streamID == .rootStream ? connectionWindow : streamWindow
            if size <= target / 2 {
                let frame = HTTP2Frame(streamID: update.streamID, payload: .windowUpdate(windowSizeIncrement: target - size))
                context.write(wrapOutboundOut(frame), promise: nil)
                needsFlush = true
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }
}
