import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// `WebhookStore` on every backend: endpoints, lifecycle events recorded with the facts they report, the
/// delivery queue's claims and leases, and replay by cursor.
@Suite struct WebhookStoreConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func endpoint(_ id: String, app: String = "a", kinds: [LifecycleEvent.Kind] = [], offset: Double = 0) -> WebhookEndpoint {
        WebhookEndpoint(id: id, appId: app, url: "http://127.0.0.1:9/\(id)", kinds: kinds, sealedSecret: [9, 9], createdAt: now + offset)
    }

    func pruned(_ token: String, at time: Date) -> LifecycleEvent {
        .make(appId: "a", kind: .tokenPruned, at: time, data: ["token": .string(token)])
    }

    /// The kinds of the app's lifecycle events, in order.
    func kinds(_ store: Stores, app: String = "a") async throws -> [LifecycleEvent.Kind] {
        try await store.webhooks.lifecycleEvents(appId: app, after: nil, limit: 1_000).map(\.kind)
    }

    @Test(arguments: Backend.available) func endpointsFilterAndQueueEvents(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            await #expect(throws: StoreError.self) { try await store.webhooks.createWebhookEndpoint(endpoint("w0", app: "nope")) }
            try await store.webhooks.createWebhookEndpoint(endpoint("w1"))
            try await store.webhooks.createWebhookEndpoint(endpoint("w2", kinds: [.eventDone, .appPaused], offset: 1))
            try await store.webhooks.recordLifecycleEvents([pruned("t1", at: now), .make(appId: "a", kind: .eventDone, at: now, data: [:])])
            let list = try await store.webhooks.webhookEndpoints(appId: "a")
            #expect(list.map(\.endpoint.id) == ["w1", "w2"])
            #expect(list.map(\.backlog) == [2, 1], "w2 takes only event.done")
            #expect(list[1].endpoint.kinds == [.eventDone, .appPaused])
            #expect(try await store.webhooks.webhookEndpoint(appId: "b", id: "w1") == nil, "another app's id finds nothing")
            #expect(try await store.webhooks.rotateWebhookSecret(appId: "a", id: "w1", sealed: [7], previous: [9, 9], previousExpiresAt: now + 60))
            let rotated = try #require(try await store.webhooks.webhookEndpoint(appId: "a", id: "w1")).endpoint
            #expect(rotated.sealedSecret == [7] && rotated.previousSealedSecret == [9, 9] && rotated.previousSecretExpiresAt == now + 60)
            #expect(try await store.webhooks.deleteWebhookEndpoint(appId: "a", id: "w1"))
            #expect(try await !store.webhooks.deleteWebhookEndpoint(appId: "a", id: "w1"))
            let claimed = try await store.webhooks.claimWebhookDeliveries(now: now + 1, limit: 10, lease: .seconds(60))
            #expect(claimed.map(\.endpoint.id) == ["w2"], "a deleted endpoint's deliveries go with it")
            #expect(try await store.registry.deleteApp(id: "a"))
            #expect(try await store.webhooks.webhookEndpoints(appId: "a").isEmpty)
            #expect(try await store.webhooks.lifecycleEvents(appId: "a", after: nil, limit: 10).isEmpty)
            #expect(try await store.webhooks.nextWebhookDueDate() == nil, "a deleted app's deliveries go with it")
        }
    }

    @Test(arguments: Backend.available) func claimsRetriesAndTakeOver(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            let (first, second) = (stores[0], stores[1])
            try await first.registry.createApp(AppRecord.fixture("a"))
            try await first.webhooks.createWebhookEndpoint(endpoint("w1"))
            let event = pruned("t1", at: now)
            try await first.webhooks.recordLifecycleEvents([event])
            #expect(try await first.webhooks.nextWebhookDueDate() == now)
            let claimed = try await first.webhooks.claimWebhookDeliveries(now: now, limit: 10, lease: .seconds(60))
            #expect(claimed.count == 1 && claimed.first?.event == event && claimed.first?.attempts == 0)
            #expect(try await first.webhooks.nextWebhookDueDate() == now + 60, "due again when its lease ends")
            #expect(try await second.webhooks.claimWebhookDeliveries(now: now + 30, limit: 10, lease: .seconds(60)).isEmpty, "leased")
            // SQLite belongs to one process: a later one releases an earlier one's claims at start.
            #expect(try await second.webhooks.releaseWebhookClaims(now: now + 30) == (backend == .sqlite ? 1 : 0))
            #expect(try await first.webhooks.releaseWebhookClaims(now: now + 30) == 0, "its own claims stay")
            // The lease ended (or the claim was released): another instance takes the delivery over; the first one's
            // late answer is not recorded.
            let retaken = try await second.webhooks.claimWebhookDeliveries(now: now + 61, limit: 10, lease: .seconds(60))
            #expect(retaken.map(\.id) == claimed.map(\.id))
            #expect(try await !first.webhooks.completeWebhookDelivery(id: claimed[0].id, endpointId: "w1", result: .delivered, now: now + 62))
            try await second.webhooks.completeWebhookDelivery(id: retaken[0].id, endpointId: "w1", result: .retry(at: now + 100, error: "HTTP 500"), now: now + 62)
            var status = try #require(try await first.webhooks.webhookEndpoint(appId: "a", id: "w1"))
            #expect(status.backlog == 1 && status.lastError == "HTTP 500" && status.lastErrorAt == now + 62 && status.lastSuccessAt == nil)
            #expect(try await first.webhooks.claimWebhookDeliveries(now: now + 99, limit: 10, lease: .seconds(60)).isEmpty, "waits its back-off")
            let again = try await first.webhooks.claimWebhookDeliveries(now: now + 100, limit: 10, lease: .seconds(60))
            #expect(again.first?.attempts == 1)
            #expect(try await first.webhooks.completeWebhookDelivery(id: again[0].id, endpointId: "w1", result: .delivered, now: now + 101))
            status = try #require(try await first.webhooks.webhookEndpoint(appId: "a", id: "w1"))
            #expect(status.backlog == 0 && status.lastSuccessAt == now + 101)
            #expect(try await first.webhooks.nextWebhookDueDate() == nil)
        }
    }

    @Test(arguments: Backend.shared) func twoInstancesNeverClaimOneDeliveryAtOnce(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            try await stores[0].registry.createApp(AppRecord.fixture("a"))
            try await stores[0].webhooks.createWebhookEndpoint(endpoint("w1"))
            try await stores[0].webhooks.recordLifecycleEvents((0..<300).map { pruned("t\($0)", at: now) })
            func claimAll(_ store: Stores) async throws -> [String] {
                var all: [String] = []
                while true {
                    let claimed = try await store.webhooks.claimWebhookDeliveries(now: now, limit: 7, lease: .seconds(60))
                    if claimed.isEmpty { return all }
                    all += claimed.map(\.id)
                }
            }
            async let a = claimAll(stores[0])
            async let b = claimAll(stores[1])
            let ids = try await a + b
            #expect(ids.count == 300 && Set(ids).count == 300)
        }
    }

    @Test(arguments: Backend.available) func replayByCursorAndPurge(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await store.registry.createApp(AppRecord.fixture("b"))
            let events = (0..<5).map { pruned("t\($0)", at: now + Double($0)) }
            try await store.webhooks.recordLifecycleEvents(events)
            try await store.webhooks.recordLifecycleEvents([.make(appId: "b", kind: .appPaused, at: now, data: [:])])
            let page = try await store.webhooks.lifecycleEvents(appId: "a", after: nil, limit: 2)
            #expect(page == Array(events.prefix(2)))
            let rest = try await store.webhooks.lifecycleEvents(appId: "a", after: page.last?.id, limit: 10)
            #expect(rest == Array(events.dropFirst(2)))
            #expect(try await store.webhooks.lifecycleEvents(appId: "a", after: rest.last?.id, limit: 10).isEmpty)
            // One event still owed to an endpoint is kept past its retention.
            try await store.webhooks.createWebhookEndpoint(endpoint("w1"))
            try await store.webhooks.recordLifecycleEvents([pruned("late", at: now)])
            #expect(try await store.webhooks.purgeLifecycleEvents(before: now + 100, limit: 100) == 6)
            #expect(try await kinds(store) == [.tokenPruned])
            #expect(try await kinds(store, app: "b").isEmpty)
        }
    }

    @Test(arguments: Backend.available) func factsRecordTheirLifecycleEvents(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let outbox = OutboxConformanceTests()
            try await outbox.seed(PortStores(store), installations: 3, events: ["e1", "e2"])
            try await store.webhooks.createWebhookEndpoint(endpoint("w1"))
            try await outbox.fanOut(PortStores(store), "e1")
            let pushes = try await outbox.claimAll(PortStores(store), at: now + 20).filter { $0.eventId == "e1" }
            #expect(pushes.count == 3)
            _ = try await store.delivery.complete([PushCompletion(push: pushes[0], result: .delivered)], now: now + 30)
            #expect(try await kinds(store).isEmpty, "not done while pushes are pending")
            _ = try await store.delivery.complete([
                PushCompletion(push: pushes[1], result: .prune(since: nil, reason: "Unregistered")),
                PushCompletion(push: pushes[2], result: .failed(reason: "BadTopic")),
            ], now: now + 31)
            let recorded = try await store.webhooks.lifecycleEvents(appId: "a", after: nil, limit: 10)
            #expect(recorded.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.eventDone, .tokenPruned])
            let done = try #require(recorded.first { $0.kind == .eventDone })
            let body = try JSONValue(json: done.body)
            let counts: [String: JSONValue] = [
                "eventId": .string("e1"), "matched": .number(3), "coalesced": .number(0), "delivered": .number(1), "failed": .number(1),
                "pruned": .number(1),
            ]
            let fields: [String: JSONValue] = [
                "id": .string(done.id), "type": .string("event.done"), "appId": .string("a"),
                "occurredAt": .string(SignalboxJSON.format(now + 31)), "data": .object(counts),
            ]
            #expect(body == .object(fields))
            try await store.delivery.failEvent(id: "e2", reason: "fan-out failed 5 times in a row", now: now + 40)
            try await store.delivery.failEvent(id: "e2", reason: "again", now: now + 41)
            #expect(try await kinds(store).filter { $0 == .eventFailed }.count == 1, "a failure is reported once")
            #expect(try await store.webhooks.webhookEndpoint(appId: "a", id: "w1")?.backlog == 3)
        }
    }

    @Test(arguments: Backend.available) func aPruneCarriesAPNsTimestampAndAMoveNamesBothInstallations(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let outbox = OutboxConformanceTests()
            try await outbox.seed(PortStores(store), installations: 1)
            try await outbox.fanOut(PortStores(store), "e1")
            let push = try #require(try await outbox.claimAll(PortStores(store), at: now + 20).first)
            let since = now + 25  // after the token was last registered: APNs says it died since
            _ = try await store.delivery.complete([PushCompletion(push: push, result: .prune(since: since, reason: "Unregistered"))], now: now + 30)
            let prune = try #require(try await store.webhooks.lifecycleEvents(appId: "a", after: nil, limit: 10).first { $0.kind == .tokenPruned })
            guard case .object(let fields) = try JSONValue(json: prune.body), case .object(let data) = fields["data"] else {
                Issue.record("not an object: \(prune.body)")
                return
            }
            let expected: [String: JSONValue] = [
                "token": .string("t0000"), "reason": .string("Unregistered"), "apnsTimestamp": .string(SignalboxJSON.format(since)),
            ]
            #expect(data == expected)
            // A reinstall: installation i0001 of the same (absent) user registers i0000's new token.
            try await store.registry.putControls(appId: "a", installationId: "i0000", [Control(kind: "door", pushToken: "tmoved")], now: now + 40)
            try await store.registry.putInstallation(appId: "a", Installation(id: "i0001", userId: nil, channels: [], environment: .sandbox), now: now + 41)
            try await store.registry.putControls(appId: "a", installationId: "i0001", [Control(kind: "door", pushToken: "tmoved")], now: now + 42)
            try await store.registry.putWidgets(appId: "a", installationId: "i0000", WidgetRegistration(pushToken: "wmoved", widgets: []), now: now + 43)
            try await store.registry.putWidgets(appId: "a", installationId: "i0001", WidgetRegistration(pushToken: "wmoved", widgets: []), now: now + 44)
            let moves = try await store.webhooks.lifecycleEvents(appId: "a", after: prune.id, limit: 10).filter { $0.kind == .tokenMoved }
            let moved = try moves.map { event -> JSONValue? in
                guard case .object(let fields) = try JSONValue(json: event.body) else { return nil }
                return fields["data"]
            }
            func move(_ token: String, _ type: String) -> JSONValue? {
                let fields: [String: JSONValue] = [
                    "token": .string(token), "pushType": .string(type), "fromInstallationId": .string("i0000"), "toInstallationId": .string("i0001"),
                ]
                return .object(fields)
            }
            let expectedMoves: [JSONValue?] = [move("tmoved", "controls"), move("wmoved", "widgets")]
            #expect(moved == expectedMoves)
        }
    }
}
