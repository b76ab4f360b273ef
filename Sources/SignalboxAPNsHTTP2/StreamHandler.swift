import NIOCore
import NIOHPACK
import NIOHTTP2
import SignalboxAPNs

/// Writes one push on its own HTTP/2 stream and reads APNs's answer.
final class StreamHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundIn = Never
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let pending: PendingPush
    private let authority: String
    private let onClose: (PendingPush, _ answered: Bool) -> Void
    private var status: Int?
    private var apnsId: String?
    private var uniqueId: String?
    private var body: ByteBuffer?
    private var answered = false

    init(pending: PendingPush, authority: String, onClose: @escaping (PendingPush, Bool) -> Void) {
        self.pending = pending
        self.authority = authority
        self.onClose = onClose
    }

    func channelActive(context: ChannelHandlerContext) {
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
        var buffer = context.channel.allocator.buffer(capacity: push.payload.count)
        buffer.writeBytes(push.payload)
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if status == nil {
                status = frame.headers.first(name: ":status").flatMap { Int($0) }
                apnsId = frame.headers.first(name: "apns-id")
                uniqueId = frame.headers.first(name: "apns-unique-id")
            }
            if frame.endStream { finish(context: context) }
        case .data(let frame):
            if case .byteBuffer(var chunk) = frame.data {
                if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            }
            if frame.endStream { finish(context: context) }
        case .rstStream(let code):
            pending.fail(ConnectionFailure.lost("stream reset: \(code)"))
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !answered { pending.fail(ConnectionFailure.lost("stream closed before the answer")) }
        onClose(pending, answered)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pending.fail(ConnectionFailure.lost("stream error: \(error)"))
        context.close(promise: nil)
    }

    private func finish(context: ChannelHandlerContext) {
        guard !answered, let status else {
            if status == nil { pending.fail(ConnectionFailure.lost("answer without :status")) }
            return
        }
        answered = true
        let bytes = body.map { Array($0.readableBytesView) } ?? []
        pending.succeed(APNsResponse(status: status, apnsId: apnsId, uniqueId: uniqueId, body: bytes))
    }
}
