import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1.1 with Signalbox's connection rules: request timeouts, at most `limit` open connections, and TLS
    /// when `tls` is given (then HTTPS only).
    static func signalbox(
        connections: ConnectionConfiguration, limit: ConnectionLimit, tls: TLSConfiguration?, logger: Logger
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http = TimedHTTP1Channel(
                base: HTTP1Channel(
                    responder: responder,
                    configuration: .init(additionalChannelHandlers: [RequestTimeoutHandler(configuration: connections, logger: logger)])
                )
            )
            if let tls {
                return LimitedChildChannel(base: RetainedChildChannel(base: try TLSChannel(http, tlsConfiguration: tls)), limit: limit)
            }
            return LimitedChildChannel(base: RetainedChildChannel(base: http), limit: limit)
        }
    }
}

/// HTTP/1.1 with a ``ReadActivityHandler`` ahead of the decoder (after TLS, when there is TLS).
struct TimedHTTP1Channel: ServerChildChannel {
    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ReadActivityHandler())
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
