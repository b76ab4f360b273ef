import Foundation
import SignalboxAPI
import SignalboxClientTesting
import Testing
@testable import SignalboxClient

/// The sync queue against an in-memory transport and a manual clock.
struct SyncQueueTests {
    @Test func theInstallationGoesFirstAndAnUnchangedSnapshotIsNotSentAgainUntilTheDailyRefresh() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.controls("c1"))
        #expect(try await fixture.queue.sync().acknowledged.isEmpty, "nothing before the installation is set")
        try fixture.queue.set(QueueFixture.installation)
        let report = try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "PUT controls"])
        #expect(report.acknowledged == ["installation", "controls"])
        #expect(fixture.transport.requests[0].url.path == "/v1/apps/app-1/installations/inst-1")
        #expect(fixture.transport.requests[0].headers["Authorization"] == "Bearer jwt-1")

        try fixture.queue.set(QueueFixture.controls("c1"))
        fixture.clock.advance(86_399)
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.count == 2, "unchanged snapshots are not sent again within a day")
        #expect(try await fixture.queue.sync().nextWake == fixture.clock.now.addingTimeInterval(1))
        fixture.clock.advance(1)
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "PUT controls", "PUT installation", "PUT controls"])
    }

    @Test func onlyTheNewestSnapshotOfAKeyIsSentWithAGrowingRevision() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(QueueFixture.controls("c1"))
        try fixture.queue.set(QueueFixture.controls("c2"))
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "PUT controls"])
        let body = MemoryTransport.json(fixture.transport.requests[1])
        #expect((body["controls"] as? [[String: Any]])?.first?["pushToken"] as? String == "c2")
        #expect(body["revision"] as? Int == 3)
        #expect(MemoryTransport.json(fixture.transport.requests[0])["revision"] as? Int == 1)
    }

    @Test func anAnswerForAnOlderRevisionDoesNotAcknowledgeTheNewerSnapshot() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(QueueFixture.controls("c1"))
        let queue = fixture.queue
        fixture.transport.answer { request in
            // The app sets a newer snapshot while the older one is on the wire.
            if MemoryTransport.describe(request) == "PUT controls", MemoryTransport.json(request)["revision"] as? Int == 2 {
                try queue.set(QueueFixture.controls("c9"))
            }
            return HTTPResponseData(status: 204)
        }
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "PUT controls", "PUT controls"])
        #expect(MemoryTransport.json(fixture.transport.requests[2])["revision"] as? Int == 3)
        let entry = try #require(try fixture.queue.state().entries["controls"])
        #expect(entry.acknowledgedRevision == 3 && entry.isAcknowledged)
    }

    @Test func aNotFoundSendsTheInstallationAgainThenTheRegistration() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try await fixture.queue.sync()
        try fixture.queue.set(QueueFixture.controls("c1"))
        let forgotten = Box(true)
        fixture.transport.answer { request in
            let first = forgotten.exchange(false)
            return HTTPResponseData(status: first && MemoryTransport.describe(request) == "PUT controls" ? 404 : 204)
        }
        let report = try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation", "PUT controls", "PUT installation", "PUT controls"])
        #expect(report.acknowledged == ["installation", "controls"] && report.errors.isEmpty)
    }

    @Test func failuresThatMayPassBackOffWithJitterAndHonourRetryAfter() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        fixture.transport.answer { _ in throw Offline() }
        let first = try await fixture.queue.sync()
        #expect(first.errors.first?.code == "network")
        // Jitter fixed at its lowest: half of base (2 s), then half of 4 s.
        #expect(first.nextWake == fixture.clock.now.addingTimeInterval(1))
        fixture.clock.advance(0.5)
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.count == 1, "nothing is sent before the back-off ends")
        fixture.clock.advance(0.5)
        #expect(try await fixture.queue.sync().nextWake == fixture.clock.now.addingTimeInterval(2))
        #expect(fixture.transport.sent.count == 2)

        fixture.transport.answer { _ in HTTPResponseData(status: 429, headers: ["Retry-After": "120"]) }
        fixture.clock.advance(2)
        let limited = try await fixture.queue.sync()
        #expect(limited.nextWake == fixture.clock.now.addingTimeInterval(120))
        #expect(try fixture.queue.state().lastError?.status == 429)
        for status in [408, 500, 503] {
            fixture.transport.answer { _ in HTTPResponseData(status: status) }
            fixture.clock.advance(10_000)
            #expect(try await fixture.queue.sync().errors.map(\.status) == [status])
        }
        fixture.transport.answer { _ in HTTPResponseData(status: 204) }
        fixture.clock.advance(10_000)
        #expect(try await fixture.queue.sync().acknowledged == ["installation"])
        #expect(try fixture.queue.state().failures == 0 && fixture.queue.state().lastError == nil)
    }

    @Test(arguments: [400, 403, 413])
    func aRefusalIsDroppedWithAVisibleErrorUntilTheSnapshotChanges(status: Int) async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(QueueFixture.controls("zz"))
        fixture.transport.answer { request in
            guard MemoryTransport.describe(request) == "PUT controls" else { return HTTPResponseData(status: 204) }
            return HTTPResponseData(status: status, body: Data(#"{"error":{"code":"invalid_field","message":"controls[0].pushToken: bad"}}"#.utf8))
        }
        let report = try await fixture.queue.sync()
        #expect(report.errors.map(\.code) == ["invalid_field"])
        let error = try #require(try fixture.queue.state().lastError)
        #expect(error.key == "controls" && error.status == status && error.message.contains("pushToken"))
        fixture.clock.advance(100_000)
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.filter { $0 == "PUT controls" }.count == 1, "a refused snapshot is not sent again")
        #expect(try fixture.queue.state().retryAt == nil, "a refusal does not hold back the others")
        fixture.transport.answer { _ in HTTPResponseData(status: 204) }
        try fixture.queue.set(QueueFixture.controls("c1"))
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.filter { $0 == "PUT controls" }.count == 2)
        #expect(try fixture.queue.state().lastError == nil)
    }

    @Test func anUnauthorizedAnswerFetchesANewTokenOnceAndRetries() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        fixture.transport.answer { request in HTTPResponseData(status: request.headers["Authorization"] == "Bearer jwt-1" ? 401 : 204) }
        #expect(try await fixture.queue.sync().acknowledged == ["installation"])
        #expect(fixture.transport.requests.map { $0.headers["Authorization"] } == ["Bearer jwt-1", "Bearer jwt-2"])
        fixture.transport.answer { _ in HTTPResponseData(status: 401) }
        try fixture.queue.set(.installation(InstallationRequest(userId: "u1", channels: [])))
        let report = try await fixture.queue.sync()
        #expect(report.errors.map(\.status) == [401] && report.nextWake != nil)
        #expect(fixture.transport.requests.count == 4, "one retry with a fresh token, then back-off")
    }

    @Test func aTokenIsRefreshedBeforeItExpires() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try await fixture.queue.sync()
        fixture.clock.advance(3600 - 100)
        try fixture.queue.set(QueueFixture.controls("c1"))
        try await fixture.queue.sync()
        #expect(fixture.transport.requests.map { $0.headers["Authorization"] } == ["Bearer jwt-1", "Bearer jwt-2"])
    }

    @Test func aStaleRevisionAnswerWithANewerServerRevisionRenumbersAndSendsAgain() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        let restored = Box(true)
        fixture.transport.answer { _ in
            guard restored.exchange(false) else { return HTTPResponseData(status: 204) }
            return HTTPResponseData(status: 409, body: Data(#"{"error":{"code":"stale_revision","message":"old","currentRevision":40}}"#.utf8))
        }
        #expect(try await fixture.queue.sync().acknowledged == ["installation"])
        #expect(fixture.transport.requests.map { MemoryTransport.json($0)["revision"] as? Int } == [1, 41])
    }

    @Test func anEnumeratorLeaseNotSentWithinItsLengthLapsesInsteadOfBeingSentLate() async throws {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(.fileProvider(FileProviderRequest(pushToken: "f0", domains: [FileProviderDomain(id: "acct", replicated: false)])))
        try await fixture.queue.sync()
        fixture.transport.answer { _ in throw Offline() }
        try fixture.queue.set(.enumeratorLease(domain: "acct", container: "folder", leaseSeconds: 60, requestedAt: fixture.clock.now))
        try await fixture.queue.sync()
        fixture.clock.advance(60)
        fixture.transport.answer { _ in HTTPResponseData(status: 200) }
        fixture.transport.clear()
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.isEmpty)
        #expect(try fixture.queue.state().entries["enumerator/acct/folder"] == nil)
    }
}

/// When nothing can be sent, `nextWake` says so instead of asking to be woken at once.
struct SyncQueueWakeTests {
    @Test func aRefusedInstallationHoldsTheOthersWithoutAWakeTime() async throws {
        let fixture = QueueFixture()
        fixture.transport.answer { _ in HTTPResponseData(status: 403, body: Data(#"{"error":{"code":"channel_not_allowed","message":"no"}}"#.utf8)) }
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(QueueFixture.controls("c1"))
        let report = try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT installation"])
        #expect(report.errors.map(\.code) == ["channel_not_allowed"])
        #expect(report.nextWake == nil)
        fixture.transport.answer { _ in HTTPResponseData(status: 204) }
        try fixture.queue.set(.installation(InstallationRequest(userId: "u1", channels: [])))
        #expect(try await fixture.queue.sync().acknowledged == ["installation", "controls"])
    }
}
