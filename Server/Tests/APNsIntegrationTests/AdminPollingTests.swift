import APNsSimulator
import Foundation
import SignalboxAPNs
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device polls the simulator's admin port for the pushes to its own tokens that it has not seen yet.
struct AdminPollingTests {
    @Test func pushesAreNumberedAndFilteredByTheDevicesTokensAndSequence() async throws {
        var configuration = APNsSimulator.Configuration()
        configuration.adminPort = 0
        let fixture = try await SimulatorFixture.start(simulator: configuration)
        let (mine, also, other) = (randomToken(), randomToken(), randomToken())
        for token in [mine, other, also, mine] {
            #expect(try await fixture.send(try fixture.push(.controls, token: token)).outcome == .delivered)
        }
        let port = try #require(fixture.simulator.adminPort)
        let url = URL(string: "http://127.0.0.1:\(port)/pushes?token=\(mine)&token=\(also.uppercased())&after=1")!
        let (data, _) = try await URLSession.shared.data(from: url)
        let pushes = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(pushes.map { $0["token"] as? String } == [also, mine])
        #expect(pushes.map { $0["sequence"] as? Int } == [3, 4])
        // Arrival times to the millisecond, in the order the pushes came.
        let arrivals = try pushes.map { try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(try #require($0["receivedAt"] as? String)) }
        #expect(arrivals == arrivals.sorted() && arrivals.allSatisfy { abs($0.timeIntervalSinceNow) < 3600 })
        // `limit`: the first pushes after the sequence, of any token (how a bench finds an event's first push).
        let first = URL(string: "http://127.0.0.1:\(port)/pushes?after=1&limit=2")!
        let firstTwo = try #require(try JSONSerialization.jsonObject(with: try await URLSession.shared.data(from: first).0) as? [[String: Any]])
        #expect(firstTwo.map { $0["sequence"] as? Int } == [2, 3])
        #expect(firstTwo.map { $0["token"] as? String } == [other, also])
        try await fixture.stop()
    }
}
