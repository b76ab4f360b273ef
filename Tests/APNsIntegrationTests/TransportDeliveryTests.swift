import APNsSimulator
import Foundation
import SignalboxAPNs
import SignalboxAPNsHTTP2
import Testing

/// The HTTP/2 transport against the simulator over real TLS + HTTP/2.
@Suite(.serialized) struct TransportDeliveryTests {
    @Test(arguments: [PushType.widgets, .controls, .fileprovider])
    func eachPushTypeIsDeliveredWithItsHeaders(_ type: PushType) async throws {
        let fixture = try await SimulatorFixture.start()
        let push = try fixture.push(type)
        let result = try await fixture.send(push)
        #expect(result.response.status == 200)
        #expect(result.outcome == .delivered)
        let recorded = try #require(fixture.simulator.acceptedPushes.first)
        // No apns-id was sent: the one the server assigned comes back.
        #expect(result.response.apnsId?.uuidString.lowercased() == recorded.apnsId)
        #expect(recorded.token == push.deviceToken.hex)
        #expect(recorded.topic == SimulatorFixture.bundleId + type.topicSuffix)
        #expect(recorded.pushType == type.rawValue)
        #expect(recorded.priority == type.defaultPriority?.rawValue)
        #expect(recorded.expiration == type.defaultExpiration?.headerValue)
        #expect(recorded.payload == String(decoding: push.payload, as: UTF8.self))
        try await fixture.stop()
    }

    @Test func givenApnsIdIsSentAndEchoed() async throws {
        let fixture = try await SimulatorFixture.start()
        var push = try fixture.push(.controls)
        let id = UUID()
        push.id = id
        let result = try await fixture.send(push)
        #expect(result.response.apnsId == id)
        #expect(fixture.simulator.acceptedPushes.first?.apnsId == id.uuidString.lowercased())
        try await fixture.stop()
    }

    @Test func streamLimitStartsAtOneThenRisesOnOneConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        let results = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
            for _ in 0..<300 {
                group.addTask { try await fixture.send(fixture.push(.controls)).outcome }
            }
            return try await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == .delivered })
        #expect(fixture.simulator.acceptedCount == 300)
        let stats = fixture.simulator.stats
        #expect(stats.connectionsAccepted == 1)
        #expect(stats.maxConcurrentStreamsObserved > 1)
        #expect(stats.maxConcurrentStreamsObserved <= 1000)
        try await fixture.stop()
    }

    /// More request bodies and error bodies than one 64 KiB HTTP/2 window holds, on one connection: both sides
    /// must hand the window back with WINDOW_UPDATE, or the connection stalls (it did, after 2,047 pushes).
    @Test func moreDataThanOneFlowControlWindowKeepsFlowing() async throws {
        let fixture = try await SimulatorFixture.start(transport: { $0.maxConnectionsPerKey = 1 })
        _ = try await fixture.send(fixture.push(.controls))
        // 2,200 pushes of 1 KiB (2.2 MB of request DATA), each refused with a JSON body (77 KB of response DATA).
        let payload = Array(#"{"aps":{"content-changed":true},"pad":"\#(String(repeating: "x", count: 1000))"}"#.utf8)
        let pushes = try (0..<2_200).map { _ in
            let push = try Push(deviceToken: DeviceToken(hex: randomToken()), pushType: .controls, bundleId: SimulatorFixture.bundleId, payload: payload)
            fixture.simulator.bind(token: push.deviceToken.hex, topic: "com.example.elsewhere.push-type.controls")
            return push
        }
        let outcomes = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
            // A debug build on a busy machine needs a while for 2,200 pushes; a stall never finishes.
            let client = APNsClient(transport: fixture.transport, timeout: .seconds(60))
            for push in pushes { group.addTask { try await client.send(push, environment: .sandbox, tokens: fixture.tokens).outcome } }
            return try await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.count == 2_200)
        #expect(outcomes.allSatisfy { $0 == .suspectToken(reason: .deviceTokenNotForTopic) })
        #expect(fixture.simulator.stats.connectionsAccepted == 1)
        try await fixture.stop()
    }

    @Test func goAwayMidFlightLosesNoPush() async throws {
        let fixture = try await SimulatorFixture.start()
        _ = try await fixture.send(fixture.push(.controls))
        fixture.simulator.script(Array(repeating: .latency(.zero), count: 50) + [.goAway])
        let pushes = try (0..<200).map { _ in try fixture.push(.controls) }
        let outcomes = try await withThrowingTaskGroup(of: PushOutcome.self) { group in
            for push in pushes { group.addTask { try await fixture.send(push).outcome } }
            return try await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == .delivered })
        let delivered = Set(fixture.simulator.acceptedPushes.map(\.token))
        #expect(delivered.isSuperset(of: pushes.map(\.deviceToken.hex)))
        #expect(fixture.simulator.stats.goAwaysSent >= 1)
        #expect(fixture.simulator.stats.connectionsAccepted >= 2)
        try await fixture.stop()
    }

    @Test func shutdownAnswerIsClassifiedAndTheNextPushUsesANewConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        fixture.simulator.script([.shutdown])
        let first = try await fixture.send(fixture.push(.widgets))
        #expect(first.response.status == 503)
        #expect(first.outcome == .reconnect(reason: .shutdown))
        let second = try await fixture.send(fixture.push(.widgets))
        #expect(second.outcome == .delivered)
        #expect(fixture.simulator.stats.connectionsAccepted == 2)
        try await fixture.stop()
    }

    @Test func connectionResetIsRetriedOnANewConnection() async throws {
        let fixture = try await SimulatorFixture.start()
        fixture.simulator.script([.reset])
        let result = try await fixture.send(fixture.push(.controls))
        #expect(result.outcome == .delivered)
        #expect(fixture.simulator.acceptedCount == 1)
        #expect(fixture.simulator.stats.connectionsAccepted == 2)
        try await fixture.stop()
    }

    @Test(arguments: [(429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable")])
    func transientFaultsAreRetryOutcomes(_ status: Int, _ reason: String) async throws {
        let fixture = try await SimulatorFixture.start()
        fixture.simulator.script([.status(status, reason: reason)])
        let result = try await fixture.send(fixture.push(.controls))
        #expect(result.response.status == status)
        #expect(result.response.reason == APNsReason(rawValue: reason))
        guard case .retry = result.outcome else {
            Issue.record("expected retry, got \(result.outcome)")
            return
        }
        try await fixture.stop()
    }
}
