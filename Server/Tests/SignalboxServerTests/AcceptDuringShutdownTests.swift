import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
@testable import SignalboxServer
import Testing

/// A server stopped while a connection is being accepted must not trap. When the listener's consumer is gone, the
/// accepted connection's value (its `NIOAsyncChannel`) is dropped, the connection then becomes active, and
/// `channelActive` released the last reference to its writer, whose deinit traps (swift-nio issue 2813; it took a
/// CI run down). ``RetainedChildChannel`` keeps the value until the connection closes and finishes its writer.
/// Without it, this test traps at `connect`.
@Suite struct AcceptDuringShutdownTests {
    @Test func aDroppedConnectionValueOutlivesActivationAndClose() throws {
        let channel = EmbeddedChannel()
        let child = RetainedChildChannel(base: HTTP1Channel(responder: { _, _, _ in }))
        var value: HTTP1Channel.Value? = try child.setup(channel: channel, logger: Logger(label: "test.accept")).wait()
        #expect(value != nil)
        value = nil  // what the listener does when nobody takes the connection any more

        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        #expect(channel.isActive)
        _ = try? channel.finish()
        #expect(!channel.isActive)
    }
}
