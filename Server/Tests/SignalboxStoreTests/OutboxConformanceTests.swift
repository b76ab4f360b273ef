import Foundation
import Logging
import SignalboxAPI
import SignalboxDelivery
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Synchronization
import Testing

/// The outbox as several processes see it: two stores on one database are two processes (two instances at once
/// on PostgreSQL; on SQLite and in memory, which one process owns, a process and the one after it).
///
/// The tests on `StoreBackend` run on memory too. Those on `Backend.shared` are about instances sharing one
/// database at once (row locks, leases read on the database's clock, LISTEN/NOTIFY, advisory locks), which only
/// PostgreSQL has; the provider-token test is about a port the memory store does not implement.
@Suite struct OutboxConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// App `a` with `count` installations of one control each (tokens `t0000`…), and event `id` to all of them.
    func seed(_ store: PortStores, installations count: Int, events: [String] = ["e1"], at time: Date? = nil) async throws {
        let now = time ?? now
        try await store.registry.createApp(AppRecord.fixture("a"))
        for index in 0..<count {
            let id = String(format: "i%04d", index)
            try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
            try await store.registry.putControls(appId: "a", installationId: id, [Control(kind: "door", pushToken: String(format: "t%04d", index))], now: now)
        }
        for (offset, id) in events.enumerated() {
            try await store.delivery.createEvent(EventRecord(
                id: id, appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all),
                createdAt: now + Double(offset)
            ))
        }
    }

    /// Fans the event out completely without hand-off (every push pending).
    func fanOut(_ store: PortStores, _ event: String, batch: Int = 100) async throws {
        var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
        while !step.finished { step = try await store.delivery.fanOutStep(eventId: event, batchSize: batch, now: now + 10, handOff: 0) }
    }

    /// Claims until nothing is due. - Returns: every push claimed.
    func claimAll(_ store: PortStores, at time: Date) async throws -> [OutboxPush] {
        var all: [OutboxPush] = []
        while true {
            let claimed = try await store.delivery.claimDuePushes(now: time, limit: 25, pausedApps: [])
            if claimed.isEmpty { return all }
            all += claimed
        }
    }

    @Test(arguments: Backend.shared) func twoClaimersNeverGetTheSamePush(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            try await seed(PortStores(stores[0]), installations: 400)
            try await fanOut(PortStores(stores[0]), "e1")
            async let first = claimAll(PortStores(stores[0]), at: now + 20)
            async let second = claimAll(PortStores(stores[1]), at: now + 20)
            let (a, b) = try await (first, second)
            let tokens = (a + b).map(\.token)
            #expect(tokens.count == 400, "every push claimed exactly once")
            #expect(Set(tokens).count == 400)
            // Each store records only what it claimed; the event's counters add up exactly.
            async let recordedA = stores[0].delivery.complete(a.map { PushCompletion(push: $0, result: .delivered) }, now: now + 30)
            async let recordedB = stores[1].delivery.complete(b.map { PushCompletion(push: $0, result: .delivered) }, now: now + 30)
            let (summaryA, summaryB) = try await (recordedA, recordedB)
            #expect(summaryA.claimsLost == 0 && summaryB.claimsLost == 0)
            let status = try #require(try await stores[1].delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 400 && status.delivered == 400 && status.pending == 0 && status.state == .done)
        }
    }

    @Test(arguments: StoreBackend.available) func aStoppedOwnersClaimsAreTakenOverAndItsLateAnswersIgnored(_ backend: StoreBackend) async throws {
        try await backend.withStores(2) { stores in
            let (gone, survivor) = (stores[0], stores[1])
            try await seed(gone, installations: 30)
            try await fanOut(gone, "e1")
            let claimed = try await claimAll(gone, at: now + 20)
            #expect(claimed.count == 30)
            // A shared database keeps a live lease; SQLite has one process, so any other owner's claim is stale.
            let early = try await survivor.delivery.releaseClaims(now: now + 21)
            #expect(early == (backend.ownedByOneProcess ? 30 : 0))
            let released = try await survivor.delivery.releaseClaims(now: now + 20 + 3_600)
            #expect(early + released == 30)
            let retaken = try await claimAll(survivor, at: now + 3_700)
            #expect(Set(retaken.map(\.token)) == Set(claimed.map(\.token)))
            // The first owner's answers arrive late: fenced out, nothing counted twice.
            let late = try await gone.delivery.complete(claimed.map { PushCompletion(push: $0, result: .delivered) }, now: now + 3_701)
            #expect(late.claimsLost == 30)
            _ = try await survivor.delivery.complete(retaken.map { PushCompletion(push: $0, result: .delivered) }, now: now + 3_702)
            let status = try #require(try await survivor.delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.delivered == 30 && status.pending == 0)
        }
    }

    @Test(arguments: Backend.shared) func anInstanceWhoseClockRunsAheadKeepsOthersLiveLeases(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            let (holder, ahead) = (stores[0], stores[1])
            let holderClock = SharedClock()
            let aheadLocal: @Sendable () -> Date = { Date() + 600 }
            let aheadClock = SharedClock(local: aheadLocal)
            let holderTrip = try #require(try await holderClock.synchronize(read: holder.delivery.sharedTime))
            let aheadTrip = try #require(try await aheadClock.synchronize(read: ahead.delivery.sharedTime))
            // Each offset is off by at most half its reading's round trip, which a loaded machine stretches to seconds.
            let uncertainty = (holderTrip.seconds + aheadTrip.seconds) / 2
            #expect(abs(aheadClock.now().timeIntervalSince(holderClock.now())) < 1 + uncertainty, "both read the database's time")
            try await seed(PortStores(holder), installations: 30, at: holderClock.now() - 60)
            var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
            while !step.finished { step = try await holder.delivery.fanOutStep(eventId: "e1", batchSize: 100, now: holderClock.now(), handOff: 0) }
            #expect(try await claimAll(PortStores(holder), at: holderClock.now()).count == 30)
            #expect(try await ahead.delivery.releaseClaims(now: aheadClock.now()) == 0, "a lease of 60 s is still live")
            #expect(try await ahead.delivery.releaseClaims(now: aheadLocal()) == 30, "by its own clock the leases had ended")
        }
    }

    @Test(arguments: Backend.shared) func anotherInstanceHearsOfAcceptedEventsAndQueuedPushes(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            let heard = Mutex<[StorageChange]>([])
            let changes = try #require(stores[1].changes, "PostgreSQL has other instances to hear")
            let listening = Task { try await changes.listenForChanges { change in heard.withLock { $0.append(change) } } }
            defer { listening.cancel() }
            // LISTEN takes effect once its connection has sent it; announce until the first is heard. The limits are
            // for a hang: a loaded run may take seconds to deliver a notification.
            try await seed(PortStores(stores[0]), installations: 3, events: [])
            var sent = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while heard.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
                try await stores[0].delivery.createEvent(EventRecord(
                    id: "e\(sent)", appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all), createdAt: now
                ))
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(heard.withLock { $0.first } == .eventAccepted)
            try await fanOut(PortStores(stores[0]), "e0")
            let queuedDeadline = ContinuousClock.now + .seconds(120)
            while !heard.withLock({ $0.contains(.pushesQueued) }) && ContinuousClock.now < queuedDeadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(heard.withLock { $0.contains(.pushesQueued) }, "pushes stored pending are announced")
        }
        try await Backend.sqlite.withStore { store in
            #expect(store.changes == nil, "SQLite has no other instances to hear")
        }
    }

    @Test(arguments: Backend.shared) func concurrentFanOutsCoalesceIntoOnePendingPushPerToken(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            try await seed(PortStores(stores[0]), installations: 300, events: ["e1", "e2"])
            async let one: Void = fanOut(PortStores(stores[0]), "e1", batch: 50)
            async let two: Void = fanOut(PortStores(stores[1]), "e2", batch: 50)
            _ = try await (one, two)
            let e1 = try #require(try await stores[0].delivery.eventStatus(appId: "a", id: "e1"))
            let e2 = try #require(try await stores[0].delivery.eventStatus(appId: "a", id: "e2"))
            #expect(e1.matched == 300 && e2.matched == 300)
            #expect(e1.coalesced + e2.coalesced == 300, "one of the two pushes to each token was absorbed")
            let claimed = try await claimAll(PortStores(stores[1]), at: now + 20)
            #expect(claimed.count == 300 && Set(claimed.map(\.token)).count == 300)
            _ = try await stores[1].delivery.complete(claimed.map { PushCompletion(push: $0, result: .delivered) }, now: now + 30)
            for id in ["e1", "e2"] {
                let status = try #require(try await stores[0].delivery.eventStatus(appId: "a", id: id))
                #expect(status.delivered == 300 && status.state == .done, "each push delivered both events")
            }
        }
    }

    @Test(arguments: Backend.shared) func twoInstancesFanOutOneEventWithoutPlanningAPageTwice(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            try await seed(PortStores(stores[0]), installations: 500)
            async let one: Void = fanOut(PortStores(stores[0]), "e1", batch: 20)
            async let two: Void = fanOut(PortStores(stores[1]), "e1", batch: 20)
            _ = try await (one, two)
            let status = try #require(try await stores[0].delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 500 && status.coalesced == 0)
            #expect(try await stores[0].delivery.outboxDepth() == 500)
        }
    }
}

extension OutboxConformanceTests {
    /// `complete` locks the event's row while it counts deliveries; a fan-out step must plan its page anyway.
    @Test(arguments: Backend.shared) func aStepPlansWhileAnotherInstanceCountsTheEventsDeliveries(_ backend: Backend) async throws {
        let url = try await TestDatabases.fresh()
        let store = try await Backend.postgres.open(url: url)
        do {
            try await seed(PortStores(store.ports), installations: 50)
            let counting = Process()
            counting.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            counting.arguments = ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", """
                BEGIN; UPDATE events SET delivered = delivered WHERE event_id = 'e1'; SELECT pg_sleep(2); COMMIT;
                """]
            try counting.run()
            // Until the row is locked: the other session is then waiting in pg_sleep.
            while try await TestDatabases.psql(url, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == "0" {
                try await Task.sleep(for: .milliseconds(20))
            }
            let step = try await store.ports.delivery.fanOutStep(eventId: "e1", batchSize: 20, now: now + 10, handOff: 0)
            counting.waitUntilExit()
            #expect(!step.busy && step.planned == 20)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// Registrations bulk-loaded before autovacuum analyzed their tables: the server's upkeep (`refreshed`) or else
    /// the event's first step analyzes them, so the page query is planned from statistics (without them PostgreSQL
    /// sorts the whole audience per page).
    @Test(arguments: [false, true]) func aFanOutAnalyzesRegistrationTablesThatWereNeverAnalyzed(refreshed: Bool) async throws {
        let url = try await TestDatabases.fresh()
        let store = try await Backend.postgres.open(url: url)
        do {
            try await seed(PortStores(store.ports), installations: 0)
            let app = "a"
            _ = try await TestDatabases.psql(url, """
                ALTER TABLE installations SET (autovacuum_enabled = false); ALTER TABLE controls SET (autovacuum_enabled = false);
                INSERT INTO installations (app_id, installation_id, user_id, channels, environment, created_at, last_seen_at)
                    SELECT '\(app)', 'i' || lpad(n::text, 5, '0'), NULL, '[]', 'sandbox', 0, 0 FROM generate_series(1, 1500) n;
                INSERT INTO controls (app_id, installation_id, position, kind, configuration, push_token, token_seen_at)
                    SELECT '\(app)', 'i' || lpad(n::text, 5, '0'), 0, 'door', '{}', lpad(to_hex(n), 8, '0'), 0 FROM generate_series(1, 1500) n;
                """)
            let counted = "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('installations', 'controls') AND n_mod_since_analyze >= 1500"
            // The statistics collector reports writes within a second or so.
            let deadline = ContinuousClock.now + .seconds(120)
            while try await TestDatabases.psql(url, counted) != "2" {
                try #require(ContinuousClock.now < deadline, "the writes never showed in pg_stat_user_tables")
                try await Task.sleep(for: .milliseconds(50))
            }
            let analyzed = "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('installations', 'controls') AND last_analyze IS NOT NULL"
            #expect(try await TestDatabases.psql(url, analyzed) == "0")
            if refreshed {
                try await store.ports.delivery.refreshPlanningStatistics()
                #expect(try await TestDatabases.psql(url, analyzed) == "2")
            }
            let step = try await store.ports.delivery.fanOutStep(eventId: "e1", batchSize: 100, now: now + 10, handOff: 0)
            #expect(step.planned == 100)
            #expect(try await TestDatabases.psql(url, analyzed) == "2")
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// A step reads the event's row before it takes the event's lock, so another instance's step may commit in
    /// between: the page must then be rolled back, not stored over the other's.
    @Test func aPageReadBeforeAnotherStepMovedTheEventIsRolledBack() async throws {
        let url = try await TestDatabases.fresh()
        let store = try await Backend.postgres.open(url: url)
        do {
            try await seed(PortStores(store.ports), installations: 30)
            let step = try await store.ports.delivery.fanOutPage(eventId: "e1", batchSize: 10, fullPage: 10, now: now + 10, urgent: true) { page in
                // After the step's read: another instance's first page (i0000…i0009) commits.
                _ = try await TestDatabases.psql(url, "UPDATE events SET state = 'fanning-out', fan_out_cursor = 'i0009', matched = 10 WHERE event_id = 'e1'")
                return try await page.store(FanOutPlanner.plan(page.event.request.target, candidates: page.candidates), handOff: 5)
            }
            #expect(step.busy && step.planned == 0 && step.handedOff.isEmpty)
            #expect(try await TestDatabases.psql(url, "SELECT (SELECT count(*) FROM outbox) + (SELECT count(*) FROM handoffs)") == "0")
            try await fanOut(PortStores(store.ports), "e1", batch: 10)
            let pushes = try await claimAll(PortStores(store.ports), at: now + 20)
            #expect(pushes.map(\.installationId).sorted() == (10..<30).map { String(format: "i%04d", $0) })
            #expect(try await store.ports.delivery.eventStatus(appId: "a", id: "e1")?.matched == 30)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test(arguments: Backend.available) func aKeysProviderTokenIsMintedOnceAndSharedUntilItIsOld(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            let key = SigningKeyID(teamId: "TEAM123456", keyId: "KEY1234567", fingerprint: "f1")
            let mints = Mutex(0)
            let mint: @Sendable (Date) -> @Sendable () throws -> SealedProviderToken = { time in
                {
                    mints.withLock { $0 += 1 }
                    return SealedProviderToken(sealed: Array("token-\(time.timeIntervalSince1970)".utf8), issuedAt: time)
                }
            }
            let first = try await stores[0].providerTokens.sharedProviderToken(key: key, now: now, maxAge: .seconds(2_700), mint: mint(now))
            let second = try await stores[1].providerTokens.sharedProviderToken(key: key, now: now + 60, maxAge: .seconds(2_700), mint: mint(now + 60))
            #expect(second == first && mints.withLock { $0 } == 1, "the second instance takes the first one's token")
            _ = try await stores[1].providerTokens.sharedProviderToken(
                key: SigningKeyID(teamId: "TEAM123456", keyId: "KEY1234567", fingerprint: "f2"), now: now, maxAge: .seconds(2_700), mint: mint(now)
            )
            #expect(mints.withLock { $0 } == 2, "a key claiming the same ids is kept apart: it gets a token of its own")
            let renewed = try await stores[1].providerTokens.sharedProviderToken(key: key, now: now + 2_700, maxAge: .seconds(2_700), mint: mint(now + 2_700))
            #expect(renewed.issuedAt == now + 2_700 && mints.withLock { $0 } == 3, "an old token is replaced")
            let seen = try await stores[0].providerTokens.sharedProviderToken(key: key, now: now + 2_760, maxAge: .seconds(2_700), mint: mint(now + 2_760))
            #expect(seen == renewed && mints.withLock { $0 } == 3)
        }
    }
}

/// What only PostgreSQL's start can show.
@Suite struct PostgresStartTests {
    @Test func aDatabaseOfANewerSchemaIsRefused() async throws {
        let url = try await TestDatabases.fresh()
        let store = try await Backend.postgres.open(url: url, maxConnections: 16)
        try await store.close()
        try await TestDatabases.psql(url, "INSERT INTO signalbox_migrations (version, applied_at) VALUES (99, 0)")
        await #expect(throws: StoreError.self) { try await Backend.postgres.open(url: url, maxConnections: 16).close() }
    }

    @Test func largeTextColumnsAreCompressedWithLZ4() async throws {
        let url = try await TestDatabases.fresh()
        try await Backend.postgres.open(url: url, maxConnections: 16).close()
        // 'l': LZ4 (Debian's PostgreSQL is built with it); other columns keep the default (empty).
        let methods = try await TestDatabases.psql(url, """
            SELECT string_agg(attrelid::regclass || '.' || attname || '=' || attcompression::text, ',' ORDER BY attrelid::regclass::text, attname)
            FROM pg_attribute WHERE attname IN ('lines', 'pushes', 'reason') AND attrelid IN ('delivery_runs'::regclass, 'handoffs'::regclass)
            """)
        #expect(methods == "delivery_runs.lines=l,delivery_runs.reason=,handoffs.pushes=l")
    }

    @Test func anUnreachableDatabaseFailsTheStartClearly() async throws {
        let error = await #expect(throws: StoreError.self) {
            try await SQLStores.postgres(url: "postgres://signalbox:secret-password@127.0.0.1:1/none?sslmode=disable", logger: .init(label: "test"), claimLease: .seconds(60)).close()
        }
        let message = try #require(error).description
        #expect(message.contains("127.0.0.1:1"))
        #expect(!message.contains("secret-password"), "the password is never shown")
    }
}
