import NIOCore
import SignalboxAPNs

/// Opens a tunnel through an HTTP proxy: sends `CONNECT host:port`, reads the proxy's answer and, on a 2xx, hands
/// the channel to `onTunnel` (which adds TLS and HTTP/2) and leaves the pipeline; on anything else, `onFailure` gets
/// an error naming the proxy's status and the channel is closed.
///
/// A handler of our own rather than NIOHTTP1's: the answer is one status line and a few headers, and removing the
/// HTTP/1 codec again without losing bytes read behind the answer is more code than parsing them.
final class ProxyConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest answer head accepted; a proxy sending more is not answering CONNECT.
    static let maxHeadLength = 16 * 1024

    private let proxy: HTTP2Transport.Proxy
    private let target: String
    private let onTunnel: (any Channel) throws -> Void
    private let onFailure: (any Error) -> Void
    private var received: ByteBuffer?
    private var finished = false

    init(
        proxy: HTTP2Transport.Proxy, target: HTTP2Transport.Endpoint,
        onTunnel: @escaping (any Channel) throws -> Void, onFailure: @escaping (any Error) -> Void
    ) {
        self.proxy = proxy
        self.target = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        self.onTunnel = onTunnel
        self.onFailure = onFailure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendConnect(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendConnect(context: context)
        context.fireChannelActive()
    }

    private func sendConnect(context: ChannelHandlerContext) {
        guard received == nil else { return }
        received = context.channel.allocator.buffer(capacity: 256)
        var head = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n"
        if let authorization = proxy.authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        head += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        var bytes = unwrapInboundIn(data)
        received?.writeBuffer(&bytes)
        guard let buffer = received, let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if (received?.readableBytes ?? 0) > Self.maxHeadLength {
                fail(context: context, "the proxy's answer to CONNECT is not HTTP (no end of headers in \(Self.maxHeadLength) bytes)")
            }
            return
        }
        let headLength = end.upperBound - buffer.readerIndex
        var rest = buffer
        let head = rest.readString(length: headLength) ?? ""
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            fail(context: context, "the proxy's answer to CONNECT is not HTTP: \(statusLine.prefix(80))")
            return
        }
        guard (200..<300).contains(status) else {
            fail(context: context, Self.explain(status: status, reason: parts.count > 2 ? String(parts[2]) : "", target: target, proxy: proxy))
            return
        }
        finished = true
        do {
            try onTunnel(context.channel)
        } catch {
            onFailure(error)
            context.close(promise: nil)
            return
        }
        if rest.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(rest)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished { fail(context: context, "the proxy closed the connection before answering CONNECT") }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !finished else { return context.fireErrorCaught(error) }
        fail(context: context, "the connection to the proxy failed: \(error)")
    }

    private func fail(context: ChannelHandlerContext, _ message: String) {
        guard !finished else { return }
        finished = true
        onFailure(APNsTransportError(.connectFailed, "HTTP proxy \(proxy.host):\(proxy.port): \(message)"))
        context.close(promise: nil)
    }

    /// The proxy's refusal in plain words.
    static func explain(status: Int, reason: String, target: String, proxy: HTTP2Transport.Proxy) -> String {
        let answer = "CONNECT \(target) answered \(status)\(reason.isEmpty ? "" : " \(reason)")"
        switch status {
        case 407 where proxy.hasCredentials:
            return "\(answer): the proxy refused the credentials in apns.proxy"
        case 407:
            return "\(answer): the proxy asked for credentials (give them as http://user:password@host:port in apns.proxy)"
        case 403:
            return "\(answer): the proxy does not allow tunnels to \(target) (check its allowed ports and hosts)"
        case 502, 503, 504:
            return "\(answer): the proxy could not reach \(target)"
        default:
            return answer
        }
    }
}
