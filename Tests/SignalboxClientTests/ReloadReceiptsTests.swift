import Foundation
import SignalboxAPI
import SignalboxClientTesting
import Testing
@testable import SignalboxClient

/// Reload receipts: kept in the store, sent in batches with the next `sync()`, kept through a lost network,
/// dropped with a reason on a 4xx.
struct ReloadReceiptsTests {
    @Test func receiptsWaitForTheInstallationAndGoInBatchesOfAHundred() async throws {
        let fixture = QueueFixture()
        let start = fixture.clock.now
        for index in 0..<150 {
            try fixture.queue.recordReload(kind: "Caffeine", pushType: .widgets)
            if index == 0 { fixture.clock.advance(2) }
        }
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.isEmpty, "no receipt before the installation is registered")

        try fixture.queue.set(QueueFixture.installation)
        let report = try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "POST reloads", "POST reloads"])
        #expect(report.reloadsSent == 150)
        let first = try #require(MemoryTransport.json(fixture.transport.requests[1])["reloads"] as? [[String: Any]])
        let second = try #require(MemoryTransport.json(fixture.transport.requests[2])["reloads"] as? [[String: Any]])
        #expect(first.count == 100 && second.count == 50)
        #expect(first[0]["kind"] as? String == "Caffeine" && first[0]["pushType"] as? String == "widgets")
        #expect(first[0]["at"] as? String == SignalboxJSON.format(start))
        #expect(first[1]["at"] as? String == SignalboxJSON.format(start.addingTimeInterval(2)))
        #expect(fixture.transport.requests[1].headers["Authorization"] == "Bearer jwt-1")
        #expect(try fixture.queue.state().pendingReloads?.isEmpty == true)

        try await fixture.queue.sync()
        #expect(fixture.transport.sent.count == 3, "sent receipts are not sent again")
    }

    @Test func aLostNetworkKeepsTheReceiptsAndA4xxDropsTheBatchWithItsReason() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try await fixture.queue.sync()
        try fixture.queue.recordReload(kind: "door", pushType: .controls)
        fixture.transport.answer { _ in throw Offline() }
        let offline = try await fixture.queue.sync()
        #expect(offline.reloadsSent == 0 && offline.errors.map(\.code) == ["network"])
        #expect(try fixture.queue.state().pendingReloads?.count == 1)

        fixture.transport.answer { request in
            guard MemoryTransport.describe(request) == "POST reloads" else { return HTTPResponseData(status: 204) }
            let body = try JSONEncoder().encode(ErrorResponse(code: "invalid_request", message: "reloads[0].kind: must not be empty"))
            return HTTPResponseData(status: 400, body: body)
        }
        let refused = try await fixture.queue.sync()
        #expect(refused.errors.map(\.status) == [400])
        #expect(try fixture.queue.state().pendingReloads?.isEmpty == true)
        #expect(try fixture.queue.state().lastError?.message == "reloads[0].kind: must not be empty")
        #expect(try fixture.queue.state().lastError?.key == "reloads")
    }

    @Test func theStoreKeepsAtMostAThousandReceiptsTheNewest() throws {
        let fixture = QueueFixture()
        let start = fixture.clock.now
        for _ in 0..<1_005 {
            try fixture.queue.recordReload(kind: "k", pushType: .widgets)
            fixture.clock.advance(1)
        }
        let pending = try #require(try fixture.queue.state().pendingReloads)
        #expect(pending.count == 1_000 && pending.first?.at == start.addingTimeInterval(5))
    }
}
