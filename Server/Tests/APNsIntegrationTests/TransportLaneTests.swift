import NIOCore
import SignalboxAPNs
import SignalboxAPNsHTTP2
import Testing

/// Each app (bundle id) has its own connections, and `prepare` opens them before the first push.
@Suite struct TransportLaneTests {
    @Test func appsOnOneKeyDoNotShareAConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        var other = try fixture.push(.controls)
        other.bundleId = "com.example.other"
        #expect(try await fixture.send(fixture.push(.controls)).outcome == .delivered)
        #expect(try await fixture.send(other).outcome == .delivered)
        #expect(try await fixture.send(fixture.push(.widgets)).outcome == .delivered)
        #expect(fixture.simulator.stats.connectionsAccepted == 2)
        #expect(fixture.transport.openConnections == 2)
        try await fixture.stop()
    }

    /// One connection per event loop of the transport's group (the singleton: one per core), at most 4.
    @Test func prepareOpensTheLanesConnectionsOnceAndTheFirstPushUsesThem() async throws {
        let fixture = try await SimulatorFixture.start()
        let lane = APNsLane(environment: .sandbox, key: fixture.key, bundleId: SimulatorFixture.bundleId)
        let loops = min(System.coreCount, 4)
        fixture.transport.prepare(lane)
        fixture.transport.prepare(lane)
        // The connections open one after another; a loaded run can take tens of seconds per handshake.
        let giveUp = ContinuousClock.now + .seconds(240)
        while fixture.simulator.stats.connectionsAccepted < loops, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fixture.simulator.stats.connectionsAccepted == loops)
        #expect(fixture.simulator.acceptedCount == 0)
        // Prepared again once open: no more connections, and the push goes out on one of them.
        fixture.transport.prepare(lane)
        #expect(try await fixture.send(fixture.push(.controls)).outcome == .delivered)
        #expect(fixture.transport.connectionsOpened == loops)
        #expect(fixture.simulator.stats.connectionsAccepted == loops)
        try await fixture.stop()
    }

    @Test func aShutDownTransportOpensNothing() async throws {
        let fixture = try await SimulatorFixture.start()
        try await fixture.transport.shutdown()
        fixture.transport.prepare(APNsLane(environment: .sandbox, key: fixture.key, bundleId: "b"))
        let error = await #expect(throws: APNsTransportError.self) { try await fixture.send(fixture.push(.controls)) }
        #expect(error?.code == .shutdown)
        try await fixture.simulator.shutdown()
    }
}
