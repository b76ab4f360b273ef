import Foundation
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS
import SignalboxAPNs

/// Sits behind the HTTP/2 handler and reports connection-level events (TLS, SETTINGS, GOAWAY, PING,
/// close) to its `APNsConnection`.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let connection: APNsConnection

    init(connection: APNsConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }.map { Int($0.value) }
            connection.settingsReceived(maxConcurrentStreams: limit)
        case .goAway(_, _, let debugData):
            let reason = debugData.flatMap { buffer in
                try? JSONDecoder().decode(APNsResponse.ErrorBody.self, from: Data(buffer.readableBytesView)).reason
            }
            connection.goAwayReceived(reason: reason ?? "no reason")
        case .ping(_, ack: true):
            connection.pingAcknowledged()
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event {
            connection.tlsEstablished(negotiatedProtocol: negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.channelClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
