import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A tiny HTTP CONNECT proxy on 127.0.0.1 for tests: counts each CONNECT, keeps its request head, and either
/// opens the tunnel or answers `refuseWith` (e.g. 407) and closes.
final class ConnectProxy: Sendable {
    struct Seen: Sendable {
        var heads: [String] = []
        var tunnels = 0
    }

    let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let recorder: Recorder

    /// CONNECT requests received, in order, each its request line and headers.
    var heads: [String] { recorder.seen.withLock { $0.heads } }
    /// Tunnels opened (CONNECT answered 200).
    var tunnels: Int { recorder.seen.withLock { $0.tunnels } }

    private init(port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup, recorder: Recorder) {
        self.port = port
        self.channel = channel
        self.group = group
        self.recorder = recorder
    }

    /// Starts the proxy; `requiredAuthorization`, when set, must be the `Proxy-Authorization` value or the answer is 407.
    static func start(requiredAuthorization: String? = nil) async throws -> ConnectProxy {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder = Recorder()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectRequestHandler(recorder: recorder, requiredAuthorization: requiredAuthorization)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ConnectProxy(port: channel.localAddress?.port ?? 0, channel: channel, group: group, recorder: recorder)
    }

    func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }

    /// What the handlers record, shared with the proxy.
    final class Recorder: Sendable {
        let seen = Mutex(Seen())
    }
}

/// Reads one CONNECT head, then relays bytes both ways.
private final class ConnectRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let recorder: ConnectProxy.Recorder
    private let requiredAuthorization: String?
    private var buffer = ByteBuffer()
    private var done = false

    init(recorder: ConnectProxy.Recorder, requiredAuthorization: String?) {
        self.recorder = recorder
        self.requiredAuthorization = requiredAuthorization
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes),
            let end = text.range(of: "\r\n\r\n")
        else { return }
        done = true
        let head = String(text[..<end.lowerBound])
        recorder.seen.withLock { $0.heads.append(head) }
        let lines = head.components(separatedBy: "\r\n")
        let authorization = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let port = Int(parts[1][parts[1].index(after: colon)...])
        else { return answer(context: context, "400 Bad Request") }
        if let requiredAuthorization, authorization != requiredAuthorization {
            return answer(context: context, "407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"")
        }
        let host = String(parts[1][..<colon])
        let client = context.channel
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { upstream in
                upstream.eventLoop.makeCompletedFuture { try upstream.pipeline.syncOperations.addHandler(Relay(partner: client)) }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let upstream):
                    self.recorder.seen.withLock { $0.tunnels += 1 }
                    context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n")), promise: nil)
                    try? context.pipeline.syncOperations.addHandler(Relay(partner: upstream))
                    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                case .failure:
                    self.answer(context: context, "502 Bad Gateway")
                }
            }
    }

    private func answer(context: ChannelHandlerContext, _ status: String) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 \(status)\r\nContent-Length: 0\r\n\r\n")))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Writes every byte it reads to `partner`, and closes `partner` when its own channel closes.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let partner: any Channel

    init(partner: any Channel) { self.partner = partner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }
}
