import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Keeps each accepted connection's value (its `NIOAsyncChannel`) until the connection closes, then finishes its
/// writer.
///
/// When the server stops while a connection is being accepted, the listener can drop the value before the
/// connection becomes active; `channelActive` then released the last reference to the writer, whose deinit traps
/// because nothing finished it (swift-nio issue 2813). Hummingbird's HTTP/1 pipeline does not pass
/// `channelInactive` on, so the writer is finished here, at close, rather than left to the pipeline.
struct RetainedChildChannel<Base: ServerChildChannel>: ServerChildChannel
where Base.Value == NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart> {
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        base.setup(channel: channel, logger: logger).map { value in
            channel.closeFuture.whenComplete { _ in
                Task { try? await value.executeThenClose { _, _ in } }  // finishes the writer; the close is a no-op
            }
            return value
        }
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
