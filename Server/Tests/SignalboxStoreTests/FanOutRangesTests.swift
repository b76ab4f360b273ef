import Foundation
import Logging
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// A large fan-out on PostgreSQL is cut into ranges of installation ids that several instances plan at once.
extension OutboxConformanceTests {
    /// App `a` with `count` installations `i00001`… of one control each, bulk-loaded and analyzed; event `e1` to all.
    func bulkSeed(_ url: String, _ store: Stores, installations count: Int) async throws {
        try await seed(PortStores(store), installations: 0)
        try await TestDatabases.psql(url, """
            INSERT INTO installations (app_id, installation_id, user_id, channels, environment, created_at, last_seen_at)
                SELECT 'a', 'i' || lpad(n::text, 5, '0'), NULL, '[]', 'sandbox', 0, 0 FROM generate_series(1, \(count)) n;
            INSERT INTO controls (app_id, installation_id, position, kind, configuration, push_token, token_seen_at)
                SELECT 'a', 'i' || lpad(n::text, 5, '0'), 0, 'door', '{}', lpad(to_hex(n), 8, '0'), 0 FROM generate_series(1, \(count)) n;
            ANALYZE installations, controls;
            """)
    }

    /// Runs `body` with `count` PostgreSQL stores on one fresh database, and closes them.
    func withPostgres(stores count: Int, _ body: (String, [Stores]) async throws -> Void) async throws {
        let url = try await TestDatabases.fresh()
        var stores: [SQLStores] = []
        do {
            for _ in 0..<count {
                stores.append(try await Backend.postgres.open(url: url))
            }
            try await body(url, stores.map(\.ports))
        } catch {
            for store in stores { try? await store.close() }
            throw error
        }
        for store in stores { try await store.close() }
    }

    /// Steps until the event is planned or, with `untilBusy`, until every range left is held elsewhere (a busy step
    /// otherwise waits a little, as the fan-out service does). - Returns: the pushes planned and the last step.
    func step(_ store: Stores, untilBusy: Bool = false) async throws -> (planned: Int, last: FanOutStep) {
        var planned = 0
        var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            step = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 100, now: now + 10, handOff: 0)
            planned += step.planned
            if step.finished || (untilBusy && step.busy) { break }
            if step.busy { try await Task.sleep(for: .milliseconds(5)) }
        }
        return (planned, step)
    }

    @Test(arguments: Backend.shared) func aLargeFanOutIsPlannedAroundARangeAnotherInstanceHolds(_ backend: Backend) async throws {
        try await withPostgres(stores: 1) { url, stores in
            let store = stores[0]
            try await bulkSeed(url, store, installations: 3_100)
            // The first page goes out before the audience is counted and cut.
            let first = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 100, now: now + 10, handOff: 0)
            #expect(first.planned == 100 && !first.finished && !first.busy)
            #expect(try await TestDatabases.psql(url, "SELECT count(*) FROM event_ranges") == "0")
            let split = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 100, now: now + 10, handOff: 0)
            #expect(split.planned == 0 && !split.finished && !split.busy)
            let bounds = try await TestDatabases.psql(url, "SELECT fan_out_cursor || '-' || coalesce(upper_bound, '') FROM event_ranges WHERE event_id = 'e1' ORDER BY position")
            #expect(bounds.split(separator: "\n") == ["i00100-i01100", "i01100-i02100", "i02100-"], "3,000 installations after the first page, in pages of 100: 3 ranges")
            let holder = try PsqlSession(url)
            defer { holder.close() }
            try holder.send("BEGIN; SELECT position FROM event_ranges WHERE event_id = 'e1' AND position = 0 FOR UPDATE;")
            let held = """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'event_ranges' AND l.granted AND l.pid <> pg_backend_pid()
                """
            let deadline = ContinuousClock.now + .seconds(120)
            while try await TestDatabases.psql(url, held) == "0" {
                try #require(ContinuousClock.now < deadline, "the session never locked the range")
                try await Task.sleep(for: .milliseconds(20))
            }
            let around = try await step(store, untilBusy: true)
            #expect(around.last.busy && around.planned == 2_000, "the two free ranges planned, then nothing left to take")
            #expect(try await TestDatabases.psql(url, "SELECT count(*) FROM outbox WHERE installation_id > 'i00100' AND installation_id <= 'i01100'") == "0")
            #expect(try await TestDatabases.psql(url, "SELECT state FROM events WHERE event_id = 'e1'") == "fanning-out")
            try holder.send("COMMIT;")
            let rest = try await step(store)
            #expect(rest.last.finished && rest.planned == 1_000)
            #expect(try await TestDatabases.psql(url, "SELECT count(*), count(DISTINCT token) FROM outbox") == "3100|3100")
            let status = try #require(try await store.delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 3_100 && status.state == .delivering)
            #expect(try await TestDatabases.psql(url, "SELECT count(*) FROM event_ranges") == "0", "a planned event's ranges are gone")
        }
    }

    /// A channel of a few installations in a large app: one cursor, no ranges (counting the app would split it).
    @Test(arguments: Backend.shared) func aSmallChannelOfALargeAppIsNotSplit(_ backend: Backend) async throws {
        try await withPostgres(stores: 1) { url, stores in
            try await bulkSeed(url, stores[0], installations: 3_000)
            try await TestDatabases.psql(url, """
                INSERT INTO installation_channels (app_id, channel, installation_id)
                    SELECT 'a', 'home:42', 'i' || lpad(n::text, 5, '0') FROM generate_series(1, 5) n
                """)
            try await stores[0].delivery.createEvent(EventRecord(
                id: "e2", appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .channels(["home:42"])),
                createdAt: now
            ))
            let step = try await stores[0].delivery.fanOutStep(eventId: "e2", batchSize: 100, now: now + 10, handOff: 0)
            #expect(step.planned == 5 && step.finished)
            #expect(try await TestDatabases.psql(url, "SELECT fan_out_ranges FROM events WHERE event_id = 'e2'") == "0")
        }
    }

    /// That a step plans while another holds a range is shown above; here two stepping at once plan every page once.
    @Test(arguments: Backend.shared) func twoInstancesPlanALargeEventsRangesWithoutPlanningAPageTwice(_ backend: Backend) async throws {
        try await withPostgres(stores: 2) { url, stores in
            try await bulkSeed(url, stores[0], installations: 3_000)
            async let one = step(stores[0])
            async let two = step(stores[1])
            let (a, b) = try await (one, two)
            print("ranges.two_instances_planned=\(a.planned)+\(b.planned)")
            #expect(a.planned + b.planned == 3_000)
            #expect(try await TestDatabases.psql(url, "SELECT count(*), count(DISTINCT token) FROM outbox") == "3000|3000")
            let status = try #require(try await stores[0].delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 3_000 && status.coalesced == 0 && status.state == .delivering)
        }
    }
}
