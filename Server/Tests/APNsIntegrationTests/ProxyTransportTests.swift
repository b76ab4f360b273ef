import APNsSimulator
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2
import Synchronization
import Testing

/// APNs reached through an HTTP CONNECT proxy: a real proxy (`ConnectProxy`) in front of the real simulator.
@Suite(.serialized) struct ProxyTransportTests {
    static let password = "pr0xy-s3cret-pass"
    static let authorization = "Basic " + Data("ops:\(password)".utf8).base64EncodedString()

    @Test func pushesGoThroughTheProxyWithItsCredentials() async throws {
        let proxy = try await ConnectProxy.start(requiredAuthorization: Self.authorization)
        let logs = CapturedLogs()
        let fixture = try await SimulatorFixture.start(transport: {
            $0.proxy = HTTP2Transport.Proxy(host: "127.0.0.1", port: proxy.port, username: "ops", password: Self.password)
        }, logger: logs.logger())
        defer { Task { try? await proxy.shutdown() } }
        for _ in 0..<5 {
            let result = try await fixture.send(fixture.push(.controls))
            #expect(result.outcome == .delivered)
        }
        #expect(fixture.simulator.acceptedCount == 5)
        #expect(proxy.tunnels >= 1)
        #expect(proxy.tunnels == fixture.transport.connectionsOpened)
        let target = "127.0.0.1:\(fixture.simulator.port)"
        for head in proxy.heads {
            #expect(head.hasPrefix("CONNECT \(target) HTTP/1.1\r\n"))
            #expect(head.contains("\r\nHost: \(target)"))
        }
        try await fixture.stop()
        #expect(!logs.lines.isEmpty)
        #expect(!logs.lines.contains { $0.contains(Self.password) || $0.contains(Self.authorization) })
    }

    @Test func proxyAskingForCredentialsGivesAClearError() async throws {
        let proxy = try await ConnectProxy.start(requiredAuthorization: Self.authorization)
        defer { Task { try? await proxy.shutdown() } }
        let fixture = try await SimulatorFixture.start(transport: {
            $0.proxy = HTTP2Transport.Proxy(host: "127.0.0.1", port: proxy.port)
            $0.reconnectBackoff = .seconds(30)
        })
        let error = await #expect(throws: APNsTransportError.self) { _ = try await fixture.sendOnce(fixture.push(.controls)) }
        #expect(error?.code == .connectFailed)
        #expect(error?.message.contains("407") == true)
        #expect(error?.message.contains("asked for credentials") == true)
        #expect(fixture.simulator.acceptedCount == 0)
        #expect(proxy.heads.count == 1)
        #expect(proxy.heads.first?.contains("Proxy-Authorization") == false)
        try await fixture.stop()
    }

    @Test func wrongCredentialsAreNamedAndNeverShown() async throws {
        let proxy = try await ConnectProxy.start(requiredAuthorization: Self.authorization)
        defer { Task { try? await proxy.shutdown() } }
        let logs = CapturedLogs()
        let fixture = try await SimulatorFixture.start(transport: {
            $0.proxy = HTTP2Transport.Proxy(host: "127.0.0.1", port: proxy.port, username: "ops", password: "wrong-\(Self.password)")
            $0.reconnectBackoff = .seconds(30)
        }, logger: logs.logger())
        let error = await #expect(throws: APNsTransportError.self) { _ = try await fixture.sendOnce(fixture.push(.controls)) }
        #expect(error?.message.contains("refused the credentials") == true)
        #expect(error.map { "\($0)".contains(Self.password) } == false)
        #expect(fixture.simulator.acceptedCount == 0)
        try await fixture.stop()
        #expect(!logs.lines.contains { $0.contains(Self.password) })
    }

    @Test func unreachableProxyIsNamed() async throws {
        let fixture = try await SimulatorFixture.start(transport: {
            $0.proxy = HTTP2Transport.Proxy(host: "127.0.0.1", port: 1)
            $0.reconnectBackoff = .seconds(30)
        })
        let error = await #expect(throws: APNsTransportError.self) { _ = try await fixture.sendOnce(fixture.push(.controls)) }
        #expect(error?.message.contains("HTTP proxy 127.0.0.1:1 unreachable") == true)
        try await fixture.stop()
    }

    @Test func proxyURLIsParsedAndItsCredentialsStayHidden() throws {
        let proxy = try HTTP2Transport.Proxy.parse("http://ops:p%40ss@proxy.internal:3128")
        #expect(proxy.host == "proxy.internal")
        #expect(proxy.port == 3128)
        #expect(proxy == HTTP2Transport.Proxy(host: "proxy.internal", port: 3128, username: "ops", password: "p@ss"))
        var configuration = HTTP2Transport.Configuration()
        configuration.proxy = proxy
        for text in ["\(configuration)", String(reflecting: configuration), "\(proxy)", String(reflecting: proxy)] {
            #expect(!text.contains("p@ss") && !text.contains("p%40ss") && !text.contains("ops:"))
        }
        #expect(try HTTP2Transport.Proxy.parse("http://10.0.0.1").port == 80)
        #expect(try HTTP2Transport.Proxy.parse("http://10.0.0.1").hasCredentials == false)
        for bad in ["https://proxy:3128", "proxy:3128", "http://:3128", "http://proxy:3128/path", "http://proxy:99999"] {
            #expect(throws: HTTP2Transport.ProxyURLError.self) { try HTTP2Transport.Proxy.parse(bad) }
        }
    }
}

extension SimulatorFixture {
    /// Sends with a deadline shorter than the reconnect back-off: one connect attempt, its failure in the error.
    func sendOnce(_ push: Push) async throws -> APNsClient.Result {
        try await APNsClient(transport: transport, timeout: .seconds(10)).send(push, environment: .sandbox, tokens: tokens)
    }
}

/// Every log line of a logger, message and metadata, to check what is never logged.
final class CapturedLogs: Sendable {
    private let captured = Mutex<[String]>([])
    var lines: [String] { captured.withLock { $0 } }

    func logger() -> Logger {
        var logger = Logger(label: "test.transport") { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { captured.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append("\(event.message) \(all.map { "\($0)=\($1)" }.joined(separator: " "))")
        }
    }
}
