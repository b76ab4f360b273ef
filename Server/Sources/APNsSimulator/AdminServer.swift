import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The simulator's HTTP/1.1 admin endpoint, for tests and tools in other processes.
///
/// - `GET /pushes` (optional `?token=`, repeatable: a device's tokens; `?after=n`: only pushes whose `sequence`
///   is above n, so a device polls for what is new), `GET /pushes/count`, `DELETE /pushes` (also resets stats)
/// - `POST /tokens/{hex}/unregister` with optional `{"timestamp": <ms>}`
/// - `POST /tokens/{hex}/bind` with `{"topic": "…"}`
/// - `POST /keys` with `{"keyId": "…", "teamId": "…", "publicKey": "<PEM>"}`
/// - `GET /stats`
enum AdminServer {
    static func start(host: String, port: Int, ledger: Ledger, logger: Logger) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(AdminHandler(ledger: ledger))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// Answers one admin request at a time on an HTTP/1.1 connection.
final class AdminHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let ledger: Ledger
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private static let bodyLimit = 64 * 1024

    init(ledger: Ledger) { self.ledger = ledger }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let chunk):
            if body.count + chunk.readableBytes <= Self.bodyLimit { body += chunk.readableBytesView }
        case .end:
            guard let head else { return }
            let (status, json) = route(head)
            respond(status, json: json, keepAlive: head.isKeepAlive, context: context)
            self.head = nil
        }
    }

    private func route(_ head: HTTPRequestHead) -> (HTTPResponseStatus, Data?) {
        let components = URLComponents(string: head.uri)
        let path = (components?.path ?? head.uri).split(separator: "/").map(String.init)
        let token = path.count == 3 && path[0] == "tokens" ? path[1] : ""
        switch (head.method, path.joined(separator: "/").replacingOccurrences(of: "tokens/\(token)/", with: "tokens/*/")) {
        case (.GET, "pushes"):
            let items = components?.queryItems ?? []
            let wanted = Set(items.filter { $0.name == "token" }.compactMap { $0.value?.lowercased() })
            let after = items.first { $0.name == "after" }?.value.flatMap { Int($0) } ?? 0
            let limit = items.first { $0.name == "limit" }?.value.flatMap { Int($0) } ?? Int.max
            let pushes = ledger.accepted.lazy.filter { (wanted.isEmpty || wanted.contains($0.token)) && $0.sequence > after }
            return (.ok, encode(Array(pushes.prefix(max(0, limit)))))
        case (.GET, "pushes/count"):
            return (.ok, encode(["count": ledger.acceptedCount]))
        case (.DELETE, "pushes"):
            ledger.reset()
            return (.noContent, nil)
        case (.GET, "stats"):
            return (.ok, encode(ledger.stats))
        case (.POST, "tokens/*/unregister"):
            struct Body: Decodable { var timestamp: Int64? }
            let given = body.isEmpty ? Body(timestamp: nil) : try? JSONDecoder().decode(Body.self, from: Data(body))
            guard let given else { return error(.badRequest, "body must be {\"timestamp\": <milliseconds>}") }
            let date = given.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? Date()
            ledger.markUnregistered(token: token.lowercased(), at: date)
            return (.noContent, nil)
        case (.POST, "tokens/*/bind"):
            struct Body: Decodable { var topic: String }
            guard let given = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
                return error(.badRequest, "body must be {\"topic\": \"…\"}")
            }
            ledger.bind(token: token.lowercased(), topic: given.topic)
            return (.noContent, nil)
        case (.POST, "keys"):
            struct Body: Decodable { var keyId: String, teamId: String, publicKey: String }
            guard let given = try? JSONDecoder().decode(Body.self, from: Data(body)),
                let key = try? P256.Signing.PublicKey(pemRepresentation: given.publicKey)
            else { return error(.badRequest, "body must be {\"keyId\", \"teamId\", \"publicKey\": <P-256 public key PEM>}") }
            ledger.register(RegisteredKey(publicKey: key, teamId: given.teamId), keyId: given.keyId)
            return (.noContent, nil)
        default:
            return error(.notFound, "no admin route \(head.method) \(components?.path ?? head.uri)")
        }
    }

    private func error(_ status: HTTPResponseStatus, _ message: String) -> (HTTPResponseStatus, Data?) {
        (status, encode(["error": message]))
    }

    private func encode(_ value: some Encodable) -> Data? {
        let encoder = JSONEncoder()
        // Milliseconds: a push's arrival is compared with events a few milliseconds apart (`bench noisy-neighbour`).
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        encoder.outputFormatting = [.sortedKeys]
        return try? encoder.encode(value)
    }

    private func respond(_ status: HTTPResponseStatus, json: Data?, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("content-length", String(json?.count ?? 0))])
        if json != nil { headers.add(name: "content-type", value: "application/json") }
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if let json { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: json)))), promise: nil) }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive { done.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) } }
    }
}
