import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Counts open HTTP connections across all event loops.
public final class ConnectionLimit: Sendable {
    public let maximum: Int
    private let open = Atomic<Int>(0)

    public init(maximum: Int) { self.maximum = maximum }

    /// Takes a slot, or returns false when all `maximum` are taken.
    func acquire() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue <= maximum { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    func release() { open.subtract(1, ordering: .relaxed) }
}

/// Wraps the server's child channel so a connection over the limit is closed as soon as it is accepted.
///
/// Hummingbird's own `MaximumAvailableConnections` stops accepting instead: excess clients then wait in the
/// kernel's backlog with no answer. Closing at once tells them, costs one descriptor for a moment, and never
/// lets the process reach its descriptor limit (where `accept` fails).
struct LimitedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    enum Value: ServerChildChannelValue {
        case served(Base.Value)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case .served(let value): value.channel
            case .refused(let channel): channel
            }
        }
    }

    let base: Base
    let limit: ConnectionLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard limit.acquire() else {
            logger.debug("connection refused: too many open connections", metadata: ["connections.max": "\(limit.maximum)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeSucceededFuture(.refused(channel))
        }
        channel.closeFuture.whenComplete { [limit] _ in limit.release() }
        return base.setup(channel: channel, logger: logger).map { .served($0) }
    }

    func handle(value: Value, logger: Logger) async {
        guard case .served(let value) = value else { return }
        await base.handle(value: value, logger: logger)
    }
}
