import Foundation
import Logging
import SignalboxServer
import SignalboxStore
import SignalboxModel
import SignalboxStoreTestSupport
import SignalboxWebhooks
import Synchronization
import Testing

/// Webhooks cannot reach the operator's own network: an endpoint whose host is or resolves to a non-public address
/// is refused when created, and a delivery whose host resolves to one by the time it is sent is not sent.
struct WebhookTargetTests {
    static func create(_ url: String) -> String { #"{"url":"\#(url)"}"# }

    @Test(arguments: [
        "http://127.0.0.1:5432/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.7/hook", "http://0.0.0.0:8080/",
        "https://192.168.1.1/", "http://100.64.0.1/", "http://[::1]:8080/hook", "http://[fe80::1]/", "http://[fd00::1]/",
        "http://[::ffff:127.0.0.1]/", "http://[::ffff:a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/", "http://localhost:5432/",
        "http://LOCALHOST/x", "http://2130706433/", "http://127.1:6379/",
    ])
    func endpointsOnNonPublicAddressesAreRefused(_ url: String) async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let reply = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create(url))
            #expect(reply.status == 422, "\(url): \(reply.body)")
            #expect(reply.errorCode == "webhook_target_not_public", "\(url): \(reply.body)")
            #expect(!reply.body.contains("whsec_") && !reply.body.contains(app.serverKey))
            let list = try await api.call(.get, "/v1/apps/\(app.id)/webhooks", key: app.serverKey)
            #expect((list.json?["endpoints"] as? [Any])?.isEmpty == true, "nothing was stored for \(url)")
        }
    }

    @Test(arguments: ["http://127.0.0.1:5432/", "http://[::1]:8080/hook", "http://localhost:5432/", "http://[::ffff:10.0.0.1]/"])
    func theOperatorMayAllowPrivateTargets(_ url: String) async throws {
        try await Harness.make(configure: { $0.webhooks.allowPrivateTargets = true }).run { api in
            let app = try await api.createApp()
            let reply = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create(url))
            #expect(reply.status == 201, "\(url): \(reply.body)")
        }
    }

    @Test func theTestDeliveryIsCheckedToo() async throws {
        // Created while private targets were allowed (as if its name resolved elsewhere then), tested without.
        let receiver = WebhookReceiver(failFirst: 1, status: 500, answer: "internal: db password=hunter2")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-target-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let masterKey = Secret.randomBytes(32)
        @Sendable func harness(allowPrivate: Bool) async throws -> Harness {
            let store = try await SQLStores.sqlite(path: path, logger: Logger(label: "test.store"))
            return try await Harness.make(masterKey: masterKey, store: store, configure: { $0.webhooks.allowPrivateTargets = allowPrivate })
        }
        try await receiver.serve { url in
            let ids = Mutex<(app: String, key: String, hook: String)?>(nil)
            try await harness(allowPrivate: true).run { api in
                let app = try await api.createApp()
                let created = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create(url))
                let id = try #require(created.json?["id"] as? String, "\(created.body)")
                ids.withLock { $0 = (app.id, app.serverKey, id) }
            }
            let (app, key, id) = try #require(ids.withLock { $0 })
            try await harness(allowPrivate: false).run { api in
                let tested = try await api.call(.post, "/v1/apps/\(app)/webhooks/\(id)/test", key: key)
                #expect(tested.status == 200 && tested.json?["delivered"] as? Bool == false, "\(tested.body)")
                #expect((tested.json?["error"] as? String)?.contains("loopback") == true, "\(tested.body)")
            }
            #expect(receiver.deliveries.count == 0, "a refused test delivery is not sent")
            try await harness(allowPrivate: true).run { api in
                let failed = try await api.call(.post, "/v1/apps/\(app)/webhooks/\(id)/test", key: key)
                #expect(failed.json?["delivered"] as? Bool == false && failed.json?["error"] as? String == "the endpoint answered HTTP 500", "\(failed.body)")
                #expect(!failed.body.contains("hunter2"), "the receiver's answer is not shown")
                let tested = try await api.call(.post, "/v1/apps/\(app)/webhooks/\(id)/test", key: key)
                #expect(!tested.body.contains("hunter2"), "the receiver's answer is not shown")
                #expect(tested.json?["delivered"] as? Bool == true && tested.json?["status"] as? Int == 200, "\(tested.body)")
                #expect((tested.json?["latencyMs"] as? Int).map { $0 >= 0 } == true, "\(tested.body)")
                #expect(Set(tested.json?.keys.map { $0 } ?? []) == ["delivered", "status", "latencyMs", "eventId"], "status and time only: \(tested.body)")
            }
            #expect(receiver.deliveries.count == 2, "only the allowed tests were sent")
        }
    }

    /// The host resolved to a public address when the endpoint was created and to loopback now: the dispatcher
    /// records a plain error and backs off, and the receiver (which the name really reaches) hears nothing. With
    /// private targets allowed the same delivery arrives, so the check is what stops it.
    @Test(arguments: [false, true])
    func aDeliveryIsCheckedWhenSent(allowPrivate: Bool) async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            // Refused, the delivery goes out by name; allowed, to the receiver's own address as in the other tests.
            let named = allowPrivate ? url : url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let lookups = Atomic<Int>(0)
            let check = WebhookTargetCheck(allowPrivate: allowPrivate) { host in
                // The first answer (at creation) is a public address; then the name's real one.
                lookups.add(1, ordering: .relaxed).oldValue == 0 ? [NetworkAddress("93.184.216.34")!] : try await SystemResolver.addresses(of: host)
            }
            #expect(await check.check(url: named) == .allowed)
            try await Backend.sqlite.withStore { store in
                let now = Date()
                try await store.registry.createApp(AppRecord.fixture("a"))
                try await store.webhooks.createWebhookEndpoint(WebhookEndpoint(id: "w1", appId: "a", url: named, kinds: [], sealedSecret: [1], createdAt: now))
                try await store.webhooks.recordLifecycleEvents([.make(appId: "a", kind: .eventDone, at: now, data: [:])])
                var configuration = WebhookConfiguration()
                configuration.retryBase = .milliseconds(20)
                configuration.retryCap = .milliseconds(50)
                // A generous deadline: in a full run the process's threads can be busy for seconds, and an answer
                // late past the deadline means a second delivery (at least once), which this test counts.
                let dispatcher = WebhookDispatcher(
                    store: store.webhooks, poster: WebhookPoster(transport: HTTPWebhookTransport.shared, timeout: .seconds(60), target: check),
                    secrets: { _, _ in ["whsec_test"] }, configuration: configuration, logger: Logger(label: "test.webhooks")
                )
                try await withThrowingTaskGroup { group in
                    group.addTask { try await dispatcher.run() }
                    defer { group.cancelAll() }
                    let deadline = ContinuousClock.now + .seconds(90)
                    while ContinuousClock.now < deadline {
                        let status = try await store.webhooks.webhookEndpoint(appId: "a", id: "w1")
                        if allowPrivate ? status?.backlog == 0 : lookups.load(ordering: .relaxed) >= 4 && status?.lastError != nil { break }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
                let status = try #require(try await store.webhooks.webhookEndpoint(appId: "a", id: "w1"))
                if allowPrivate {
                    #expect(receiver.accepted.count == 1 && status.backlog == 0 && status.lastError == nil, "\(status.lastError ?? "") after \(lookups.load(ordering: .relaxed)) lookups")
                } else {
                    #expect(receiver.deliveries.count == 0, "a delivery to a loopback address was sent")
                    #expect(status.backlog == 1 && status.lastErrorAt != nil, "the delivery stays queued, to be tried again")
                    #expect(status.lastError?.hasPrefix("not sent:") == true && status.lastError?.contains("loopback") == true, "\(status.lastError ?? "")")
                    #expect(lookups.load(ordering: .relaxed) >= 4, "each attempt checks again")
                }
            }
        }
    }
}
