import Foundation
@testable import SignalboxDelivery
import SignalboxModel
import Testing

/// Handed-off pushes waiting for the connections: taken in the order handed off, apps taking turns.
@Suite struct HandedOffPushesTests {
    private func pushes(_ app: String, _ count: Int) -> [OutboxPush] {
        (0..<count).map {
            OutboxPush(
                id: "\(app)-\($0)", appId: app, eventId: "e-\(app)", installationId: "i\($0)", token: "t\($0)", kind: .controls,
                environment: .production, payload: "{}", attempts: 0, eventCreatedAt: Date(timeIntervalSince1970: 0)
            )
        }
    }

    @Test func aQuietAppsPushGoesBeforeTheRestOfALoudAppsPage() {
        let waiting = HandedOffPushes()
        waiting.add(pushes("x", 500))
        waiting.add(pushes("y", 1))
        let first = waiting.take(upTo: 10)
        #expect(first.count == 10)
        #expect(first.contains { $0.appId == "y" }, "y's one push is among the first ten, not after x's 500")
        #expect(first.filter { $0.appId == "x" }.map(\.id) == (0..<9).map { "x-\($0)" }, "x's in the order handed off")
        let rest = waiting.take(upTo: 1_000)
        #expect(rest.map(\.id) == (9..<500).map { "x-\($0)" })
        #expect(waiting.take(upTo: 5).isEmpty)
    }

    @Test func nothingIsTakenWithoutRoom() {
        let waiting = HandedOffPushes()
        waiting.add(pushes("x", 3))
        #expect(waiting.take(upTo: 0).isEmpty && waiting.take(upTo: -2).isEmpty)
        #expect(waiting.take(upTo: 3).count == 3)
    }
}
