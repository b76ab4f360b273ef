import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdTLS
import NIOCore
import NIOPosix
import NIOSSL
import SignalboxWebhooks
import Synchronization
import Testing

/// A real HTTP receiver on 127.0.0.1 (Hummingbird, an ephemeral port) that records every delivery it is sent and
/// answers as told: 200, or a failure status for the first `failFirst` requests. With `tls`, it serves HTTPS.
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        let signature: String
        let eventId: String
        let eventType: String
        let body: [UInt8]
        let answered: Int
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    private let received = Mutex<[Delivery]>([])
    private let failuresLeft: Atomic<Int>
    private let failStatus: Int
    private let tls: TLSConfiguration?
    /// The body of every answer (what a caller of the test delivery must never see).
    private let answer: String

    init(failFirst: Int = 0, status: Int = 503, tls: TLSConfiguration? = nil, answer: String = "") {
        failuresLeft = Atomic(failFirst)
        failStatus = status
        self.tls = tls
        self.answer = answer
    }

    var deliveries: [Delivery] { received.withLock { $0 } }
    /// Deliveries it accepted (answered 2xx).
    var accepted: [Delivery] { deliveries.filter { $0.answered == 200 } }

    /// Runs `body` with the receiver listening; the argument is its base URL.
    func serve(_ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("hook") { [self] request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let failing = failuresLeft.wrappingSubtract(1, ordering: .relaxed).oldValue > 0
            let status = failing ? failStatus : 200
            received.withLock {
                $0.append(Delivery(
                    signature: request.headers[HTTPField.Name(WebhookSignature.headerName)!] ?? "",
                    eventId: request.headers[HTTPField.Name(WebhookPoster.eventIdHeader)!] ?? "",
                    eventType: request.headers[HTTPField.Name(WebhookPoster.eventTypeHeader)!] ?? "",
                    body: Array(buffer: bytes), answered: status
                ))
            }
            return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0))
        if let tls {
            let app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tls), configuration: configuration)
            try await LiveServer.run(app) { server in try await body("https://127.0.0.1:\(server.port)/hook") }
        } else {
            let app = Application(router: router, configuration: configuration)
            try await LiveServer.run(app) { server in try await body("http://127.0.0.1:\(server.port)/hook") }
        }
    }

    /// Waits until `condition` holds for what was received, for at most `timeout` (a bound for a hang, not a window).
    func wait(timeout: Duration = .seconds(120), until condition: ([Delivery]) -> Bool) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let now = deliveries
            if condition(now) || ContinuousClock.now > deadline { return now }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A TCP port on 127.0.0.1 that accepts connections and never answers (a hung endpoint).
struct SilentPort {
    let channel: any Channel
    var port: Int { channel.localAddress?.port ?? 0 }

    static func open() async throws -> SilentPort {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        return SilentPort(channel: channel)
    }

    func close() async { try? await channel.close() }
}
