import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// Posts one webhook: the HTTP seam of `WebhookPoster` (tests post to a real receiver through the production one).
public protocol WebhookTransport: Sendable {
    /// Posts `body` to `url` and returns the answer's status; throws when no answer came by `deadline`.
    func post(url: String, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant) async throws -> Int
}

/// HTTP/1.1 (or HTTP/2 when a TLS endpoint offers it) through async-http-client. Redirects are not followed:
/// a 3xx is an answer, and a failed one.
public struct HTTPWebhookTransport: WebhookTransport {
    /// One client for the process, never shut down (like `HTTPClient.shared`), so nothing leaks or must be awaited.
    public static let shared = HTTPWebhookTransport(client: HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: connectionTimeout,
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        )
    ))

    /// A delivery's deadline (`webhooks.timeoutSeconds`) bounds it, connecting included; async-http-client's own
    /// 10 s connect limit would cut a slow handshake short of that deadline and be reported as it.
    private static let connectionTimeout = HTTPClient.Configuration.Timeout(connect: .seconds(120))

    let client: HTTPClient

    /// Transports that also trust a CA file's certificates, one per file for the process (never shut down, as `shared`).
    private static let trustingFile = Mutex<[String: HTTPWebhookTransport]>([:])

    /// The transport for `webhooks.caFile`: `shared` without one; with one, a client whose trust roots are the
    /// system's plus the file's PEM certificates (read once; a changed file needs a restart).
    /// - Throws: when the file holds no readable PEM certificate.
    public static func trusting(caFile: String?) throws -> HTTPWebhookTransport {
        guard let caFile else { return shared }
        return try trustingFile.withLock { transports in
            if let transport = transports[caFile] { return transport }
            let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            guard !certificates.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(certificates)]
            let transport = HTTPWebhookTransport(client: HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: HTTPClient.Configuration(
                    tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: connectionTimeout,
                    connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
                )
            ))
            transports[caFile] = transport
            return transport
        }
    }

    public func post(url: String, headers: [(String, String)], body: [UInt8], deadline: ContinuousClock.Instant) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = HTTPHeaders(headers)
        request.body = .bytes(ByteBuffer(bytes: body))
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
        let response = try await client.execute(request, deadline: .now() + .nanoseconds(nanoseconds))
        // The answer's body is read (bounded) and dropped, so the connection can be used again.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return Int(response.status.code)
    }
}
