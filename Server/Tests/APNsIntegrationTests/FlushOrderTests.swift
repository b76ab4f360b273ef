import NIOCore
import NIOEmbedded
import NIOHTTP2
import SignalboxAPNs
import Testing

@testable import SignalboxAPNsHTTP2

/// The client's pipeline below TLS (coalescer, HTTP/2, frame handler) against a real HTTP/2 server handler, bytes
/// moved between two embedded channels: what the server reads when many pushes are written in one tick.
@Suite struct FlushOrderTests {
    /// Counts the flushes that reach the channel (where TLS would encrypt and the socket write).
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        var flushes = 0
        func flush(context: ChannelHandlerContext) {
            flushes += 1
            context.flush()
        }
    }

    let client = EmbeddedChannel()
    let server = EmbeddedChannel()
    let counter = FlushCounter()
    let handler: ConnectionHandler

    init() throws {
        handler = ConnectionHandler(connection: ConnectionHandlerTests.Recorder(), authority: "apns.test")
        try client.pipeline.syncOperations.addHandlers([
            counter, FlushCoalescingHandler(), NIOHTTP2Handler(mode: .client), handler,
        ])
        try server.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server))
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 443)
        try client.connect(to: address).wait()
        try server.connect(to: address).wait()
        // Prefaces and SETTINGS (with their acknowledgements) both ways.
        for _ in 0..<3 { try exchange() }
        while try server.readInbound(as: HTTP2Frame.self) != nil {}
    }

    /// Runs both loops and moves every flushed byte to the other side.
    func exchange() throws {
        client.embeddedEventLoop.run()
        while let bytes = try client.readOutbound(as: ByteBuffer.self) { try server.writeInbound(bytes) }
        server.embeddedEventLoop.run()
        while let bytes = try server.readOutbound(as: ByteBuffer.self) { try client.writeInbound(bytes) }
    }

    @Test func pushesWrittenInOneTickEndInTheOrderWrittenWithOneFlush() throws {
        let key = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456")
        let token = key.providerToken(issuedAt: .now)
        let flushesBefore = counter.flushes
        for index in 0..<40 {
            let push = try Push(deviceToken: DeviceToken(hex: String(format: "%04x", index)), pushType: .controls, bundleId: "com.example")
            let request = APNsRequest(push: push, environment: .sandbox, token: token, teamId: key.teamId, keyId: key.keyId)
            handler.start(PendingPush(request: request, deadline: .distantFuture) { _ in })
        }
        try exchange()
        #expect(counter.flushes - flushesBefore == 1, "one flush for the tick's 40 pushes")
        var ended: [Int] = []
        while let frame = try server.readInbound(as: HTTP2Frame.self) {
            if case .data(let data) = frame.payload, data.endStream { ended.append(Int(frame.streamID)) }
        }
        // A server answers a request when it ends: in this order.
        #expect(ended == Array(stride(from: 1, through: 79, by: 2)))
    }

    @Test func aCloseSendsWhatTheTickHeldFirst() throws {
        let channel = EmbeddedChannel()
        let counter = FlushCounter()
        try channel.pipeline.syncOperations.addHandlers([counter, FlushCoalescingHandler()])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        channel.write(ByteBuffer(string: "GOAWAY"), promise: nil)
        channel.flush()
        #expect(counter.flushes == 0, "held until the tick ends")
        _ = channel.close()
        #expect(counter.flushes == 1, "flushed before the close")
    }
}
