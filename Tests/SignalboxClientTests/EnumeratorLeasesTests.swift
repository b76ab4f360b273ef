import Foundation
import SignalboxAPI
import SignalboxClientTesting
import Testing
@testable import SignalboxClient

/// Leases for live enumerators: renewed at half their length, dropped on invalidate, lapsing offline.
struct EnumeratorLeasesTests {
    static func registered() async throws -> QueueFixture {
        let fixture = QueueFixture()
        try fixture.queue.set(QueueFixture.installation)
        try fixture.queue.set(.fileProvider(FileProviderRequest(pushToken: "f0", domains: [
            FileProviderDomain(id: "acct", replicated: false), FileProviderDomain(id: "photos", replicated: true),
        ])))
        try await fixture.queue.sync()
        fixture.transport.clear()
        return fixture
    }

    @Test func aLiveEnumeratorIsLeasedRenewedAtHalfItsLengthAndDroppedOnInvalidate() async throws {
        let fixture = try await Self.registered()
        let leases = EnumeratorLeases(queue: fixture.queue, leaseSeconds: 600, clock: fixture.clock)
        #expect(try await leases.open(domain: "acct", container: "folder-1"))
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT file-provider domains acct enumerators folder-1"])
        #expect(MemoryTransport.json(fixture.transport.requests[0])["leaseSeconds"] as? Int == 600)
        fixture.clock.advance(299)
        try await leases.renewDue()
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.count == 1)
        fixture.clock.advance(1)
        #expect(try await leases.renewDue() == fixture.clock.now.addingTimeInterval(300))
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.count == 2)
        try await leases.invalidate(domain: "acct", container: "folder-1")
        try await fixture.queue.sync()
        let delete = try #require(fixture.transport.requests.last)
        let revision = try fixture.queue.state().nextRevision - 1
        #expect(delete.method == "DELETE" && delete.url.query == "revision=\(revision)")
        #expect(try fixture.queue.state().entries["enumerator/acct/folder-1"] == nil)
        #expect(await leases.nextRenewal == nil)
    }

    @Test func theWorkingSetAndReplicatedDomainsAreNeverLeased() async throws {
        let fixture = try await Self.registered()
        let leases = EnumeratorLeases(queue: fixture.queue, clock: fixture.clock)
        #expect(try await !leases.open(domain: "acct", container: EnumeratorLeases.workingSet))
        #expect(try await !leases.open(domain: "photos", container: "album-1"))
        try await leases.invalidate(domain: "photos", container: "album-1")
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.isEmpty)
    }

    @Test func offlineRenewalsReplaceEachOtherAndALapsedLeaseIsNeverSent() async throws {
        let fixture = try await Self.registered()
        let leases = EnumeratorLeases(queue: fixture.queue, leaseSeconds: 60, clock: fixture.clock)
        fixture.transport.answer { _ in throw Offline() }
        try await leases.open(domain: "acct", container: "folder-1")
        for _ in 0..<4 {
            try await fixture.queue.sync()
            fixture.clock.advance(30)
            try await leases.renewDue()
        }
        // Online again while the extension still runs: one renewal, the newest.
        fixture.transport.answer { _ in HTTPResponseData(status: 200) }
        fixture.clock.advance(10_000)
        fixture.transport.clear()
        try await leases.renewDue()
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["PUT file-provider domains acct enumerators folder-1"])

        // The extension is gone (no more renewDue) and the device offline past the lease: nothing is sent later.
        fixture.transport.answer { _ in throw Offline() }
        fixture.clock.advance(30)
        try await leases.renewDue()
        try await fixture.queue.sync()
        fixture.clock.advance(60)
        fixture.transport.answer { _ in HTTPResponseData(status: 200) }
        fixture.clock.advance(10_000)
        fixture.transport.clear()
        try await fixture.queue.sync()
        #expect(fixture.transport.sent.isEmpty)
    }
}
