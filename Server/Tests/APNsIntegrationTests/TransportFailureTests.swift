import APNsSimulator
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2
import Synchronization
import Testing

@Suite(.serialized) struct TransportFailureTests {
    @Test func unregisteredTokenYieldsPruneWithTimestamp() async throws {
        let fixture = try await SimulatorFixture.start()
        let token = randomToken()
        let since = Date(timeIntervalSince1970: 1_800_000_000.250)
        fixture.simulator.markUnregistered(token: token, at: since)
        let result = try await fixture.send(fixture.push(.controls, token: token))
        #expect(result.response.status == 410)
        #expect(result.outcome == .pruneToken(since: since, reason: .unregistered))
        try await fixture.stop()
    }

    @Test func expiredProviderTokenRecovers() async throws {
        let skew = Mutex(-90.0 * 60)
        let fixture = try await SimulatorFixture.start(tokenClock: { Date().addingTimeInterval(skew.withLock { $0 }) })
        _ = fixture.tokens.current()  // minted 90 minutes "ago" from the simulator's point of view
        skew.withLock { $0 = -45 * 60 }  // our clock now says the token is 45 minutes old: still reused
        let result = try await fixture.send(fixture.push(.controls))
        #expect(result.outcome == .delivered)
        #expect(fixture.simulator.stats.rejected["ExpiredProviderToken"] == 1)
        #expect(fixture.simulator.acceptedCount == 1)
        try await fixture.stop()
    }

    @Test func deadlineIsEnforced() async throws {
        let fixture = try await SimulatorFixture.start()
        _ = try await fixture.send(fixture.push(.controls))
        // The answer would come after an hour: a send that ends at all, and well within a minute, ended at its
        // 300 ms deadline however loaded the run, never at the answer.
        fixture.simulator.script([.latency(.seconds(3600))])
        let client = APNsClient(transport: fixture.transport, timeout: .milliseconds(300))
        let started = ContinuousClock.now
        await #expect(throws: APNsTransportError.self) {
            _ = try await client.send(fixture.push(.controls), environment: .sandbox, tokens: fixture.tokens)
        }
        #expect(ContinuousClock.now - started < .seconds(60))
        try await fixture.stop()
    }

    @Test func unreachableServerBacksOffInsteadOfLooping() async throws {
        var configuration = HTTP2Transport.Configuration.singleEndpoint(host: "127.0.0.1", port: 1, trustRoots: .system)
        configuration.reconnectBackoff = .milliseconds(100)
        let transport = try HTTP2Transport(configuration: configuration, logger: Logger(label: "test"))
        let fixture = try await SimulatorFixture.start()
        let client = APNsClient(transport: transport, timeout: .seconds(5))
        await #expect(throws: APNsTransportError.self) {
            _ = try await client.send(fixture.push(.controls), environment: .sandbox, tokens: fixture.tokens)
        }
        // 100, 200, 400 ms… scaled to 50–100 % by jitter: the second attempt is due within 100 ms, so it comes well
        // inside five seconds however loaded the run; seven attempts at most fit in them (gaps of at least 50, 100,
        // 200, 400, 800 and 1,600 ms), one more is slack; a loop would make hundreds.
        #expect(transport.connectionsOpened >= 2)
        #expect(transport.connectionsOpened <= 8)
        try await transport.shutdown()
        try await fixture.stop()
    }

    @Test func untrustedCertificateFailsToConnect() async throws {
        let fixture = try await SimulatorFixture.start()
        let other = try await APNsSimulator.start()
        let configuration = HTTP2Transport.Configuration.singleEndpoint(
            host: "127.0.0.1", port: fixture.simulator.port, trustRoots: .pem(other.certificatePEM)
        )
        let transport = try HTTP2Transport(configuration: configuration)
        let client = APNsClient(transport: transport, timeout: .milliseconds(500))
        await #expect(throws: APNsTransportError.self) {
            _ = try await client.send(fixture.push(.controls), environment: .sandbox, tokens: fixture.tokens)
        }
        #expect(fixture.simulator.acceptedCount == 0)
        try await transport.shutdown()
        try await other.shutdown()
        try await fixture.stop()
    }
}
