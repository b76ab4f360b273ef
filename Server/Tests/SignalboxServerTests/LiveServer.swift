import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Runs an application on a free local port for the length of a test, with a client for it.
///
/// HummingbirdTesting's `.live` client gives up on a connect after 5 s and keeps one connection, which the server's
/// idle limit may close between two requests; a full parallel run on two cores exceeds both. Requests here go
/// through async-http-client: a pool that opens a new connection when one was closed, with limits only a hang reaches.
struct LiveServer: Sendable {
    let port: Int
    let sender: any RequestSender

    /// Starts `app` (configured for port 0), runs `body`, then shuts the server down; `body`'s error is rethrown.
    static func run(_ app: some ApplicationProtocol, _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let service = PortReporting(base: app) { portContinuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [service], logger: app.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw ServerDidNotStart()
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration)
            let outcome: Result<Void, any Error>
            do {
                try await body(LiveServer(port: port, sender: PooledSender(client: client, base: "http://127.0.0.1:\(port)")))
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            try? await client.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            try outcome.get()
        }
    }

    /// No redirects followed (tests read them), connects and answers bounded only against a hang, and idle
    /// connections closed by the client well before the server's 60 s idle limit can close one under a request.
    private static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(120), read: .seconds(120)),
            connectionPool: .init(idleTimeout: .seconds(20))
        )
        configuration.decompression = .disabled
        return configuration
    }

    struct ServerDidNotStart: Error {}
}

/// The wrapped application, reporting the port it listens on once it does.
private struct PortReporting<Base: ApplicationProtocol>: ApplicationProtocol, Service {
    let base: Base
    let report: @Sendable (Int) -> Void

    var responder: Base.Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        if let port = channel.localAddress?.port { report(port) }
    }
}

/// Service groups name their services by describing them; not by reflecting over the whole application.
extension PortReporting: CustomStringConvertible {
    var description: String { "LiveServer" }
}

/// Sends through a pooled async-http-client.
private struct PooledSender: RequestSender {
    let client: HTTPClient
    let base: String

    func send(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> SentReply {
        var request = HTTPClientRequest(url: base + path)
        request.method = HTTPMethod(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        request.body = body.map { .bytes($0) }
        let response = try await client.execute(request, timeout: .seconds(120))
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return SentReply(status: Int(response.status.code), headers: fields, body: bytes)
    }
}
