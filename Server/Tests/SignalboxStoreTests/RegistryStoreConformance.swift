import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// Behaviour every `RegistryStore` backend must show; a backend's suite calls each check on a fresh store.
struct RegistryStoreConformance {
    let store: any RegistryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func appsRoundTripAndStayApart() async throws {
        try await store.createApp(AppRecord.fixture("a", keyHash: "hash-a"))
        try await store.createApp(AppRecord.fixture("b", keyHash: "hash-b"))
        await #expect(throws: StoreError.self) { try await store.createApp(AppRecord.fixture("a")) }
        #expect(try await store.app(id: "a") == AppRecord.fixture("a", keyHash: "hash-a"))
        #expect(try await store.app(serverKeyHash: "hash-b")?.id == "b")
        #expect(try await store.apps().map(\.id) == ["a", "b"])
        #expect(try await store.updateServerKeyHash(appId: "a", hash: "hash-a2"))
        #expect(try await store.app(serverKeyHash: "hash-a") == nil)
        #expect(try await !store.updateServerKeyHash(appId: "zz", hash: "x"))
        try await store.putInstallation(appId: "a", Installation(id: "i", userId: "u", channels: [], environment: .sandbox), now: now)
        #expect(try await store.installation(appId: "b", id: "i", now: now) == nil, "apps never see each other's data")
        #expect(try await store.deleteApp(id: "a"))
        #expect(try await store.installation(appId: "a", id: "i", now: now) == nil)
        #expect(try await !store.deleteApp(id: "a"))
    }

    func registrationsReplaceTheirSets() async throws {
        try await store.putInstallation(appId: "a", Installation(id: "i", userId: "u", channels: ["x", "y"], environment: .production), now: now)
        try await store.putWidgets(appId: "a", installationId: "i", WidgetRegistration(pushToken: "aa", widgets: [Widget(kind: "k", family: "f")]), now: now)
        try await store.putControls(appId: "a", installationId: "i", [Control(kind: "c", pushToken: "01"), Control(kind: "d", pushToken: "02")], now: now)
        try await store.putControls(appId: "a", installationId: "i", [Control(kind: "d", pushToken: "02")], now: now)
        try await store.putFileProvider(appId: "a", installationId: "i", FileProviderRegistration(pushToken: "ff", domains: [.init(id: "d1", replicated: true), .init(id: "d2", replicated: false)]), now: now)
        try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d2", container: "c", expiresAt: now + 60), now: now)
        // Dropping a domain ends its enumerators.
        try await store.putFileProvider(appId: "a", installationId: "i", FileProviderRegistration(pushToken: "ff", domains: [.init(id: "d1", replicated: true)]), now: now)
        let snapshot = try #require(try await store.installation(appId: "a", id: "i", now: now))
        #expect(snapshot.installation.channels == ["x", "y"])
        #expect(snapshot.widgets?.widgets == [Widget(kind: "k", family: "f")])
        #expect(snapshot.controls == [Control(kind: "d", pushToken: "02")])
        #expect(snapshot.fileProvider?.domains == [.init(id: "d1", replicated: true)])
        #expect(snapshot.enumerators.isEmpty)
    }

    func identicalWritesOnlyTouchLastSeen() async throws {
        let installation = Installation(id: "i", userId: nil, channels: ["c"], environment: .sandbox)
        let widgets = WidgetRegistration(pushToken: "aa", widgets: [Widget(kind: "k", family: "f", configuration: .object(["a": .number(1)]))])
        try await store.putInstallation(appId: "a", installation, now: now)
        try await store.putWidgets(appId: "a", installationId: "i", widgets, now: now)
        let first = try #require(try await store.installation(appId: "a", id: "i", now: now))
        try await store.putInstallation(appId: "a", installation, now: now + 10)
        try await store.putWidgets(appId: "a", installationId: "i", widgets, now: now + 10)
        var second = try #require(try await store.installation(appId: "a", id: "i", now: now))
        #expect(second.lastSeenAt == now + 10)
        second.lastSeenAt = first.lastSeenAt
        #expect(second == first)
    }

    func writesNeedTheirParents() async throws {
        await #expect(throws: StoreError.self) {
            try await store.putControls(appId: "a", installationId: "missing", [], now: now)
        }
        try await store.putInstallation(appId: "a", Installation(id: "i", userId: "u", channels: [], environment: .sandbox), now: now)
        await #expect(throws: StoreError.self) {
            try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "nope", container: "c", expiresAt: now + 1), now: now)
        }
        #expect(try await store.installationUser(appId: "a", id: "i") == .some("u"))
        #expect(try await store.installationUser(appId: "a", id: "other") == nil)
    }

    /// Many writes at once (sharing group commits where a backend has them): each gets its own answer, a write to a
    /// missing installation fails alone, and the last of several writes to one installation is what stays.
    func concurrentWritesEachGetTheirOwnAnswer() async throws {
        let store = store, now = now
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let id = "i\(index)"
                    if index % 10 != 3 {
                        try await store.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: ["c\(index % 3)"], environment: .sandbox), now: now)
                    }
                    do {
                        try await store.putControls(appId: "a", installationId: id, [Control(kind: "k", pushToken: String(format: "%04x", index))], now: now)
                        return nil
                    } catch let error as StoreError where error.code == .notFound {
                        return id
                    }
                }
            }
            return try await group.reduce(into: Set<String>()) { if let id = $1 { $0.insert(id) } }
        }
        #expect(failures == Set((0..<200).filter { $0 % 10 == 3 }.map { "i\($0)" }))
        #expect(try await store.installation(appId: "a", id: "i7", now: now)?.controls == [Control(kind: "k", pushToken: "0007")])
        #expect(try await store.installation(appId: "a", id: "i13", now: now) == nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for token in ["aa", "bb", "cc", "dd"] {
                group.addTask { try await store.putControls(appId: "a", installationId: "i7", [Control(kind: "k", pushToken: token)], now: now) }
            }
            try await group.waitForAll()
        }
        let kept = try #require(try await store.installation(appId: "a", id: "i7", now: now)?.controls)
        #expect(kept.count == 1 && ["aa", "bb", "cc", "dd"].contains(kept[0].pushToken), "one whole write stays, never a mix")
    }

    func leasesExpireAndAreCleanedUp() async throws {
        try await store.putInstallation(appId: "a", Installation(id: "i", userId: nil, channels: [], environment: .sandbox), now: now)
        try await store.putFileProvider(appId: "a", installationId: "i", FileProviderRegistration(pushToken: "ff", domains: [.init(id: "d", replicated: false)]), now: now)
        try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d", container: "short", expiresAt: now + 10), now: now)
        try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d", container: "long", expiresAt: now + 100), now: now)
        #expect(try await store.installation(appId: "a", id: "i", now: now + 50)?.enumerators.map(\.container) == ["long"])
        #expect(try await store.deleteExpiredEnumerators(now: now + 50) == 1)
        #expect(try await store.deleteEnumerator(appId: "a", installationId: "i", domain: "d", container: "long", now: now))
        #expect(try await !store.deleteEnumerator(appId: "a", installationId: "i", domain: "d", container: "long", now: now))
    }

    /// A reinstall takes its tokens over from the user's old installation; another user's installation keeps them.
    func onlyTheSameUsersInstallationGivesATokenUp() async throws {
        try await store.createApp(AppRecord.fixture("a"))
        func register(_ installation: String, user: String) async throws {
            try await store.putInstallation(appId: "a", Installation(id: installation, userId: user, channels: [], environment: .sandbox), now: now)
            try await store.putWidgets(appId: "a", installationId: installation, WidgetRegistration(pushToken: "aa01", widgets: [Widget(kind: "k", family: "f")]), now: now)
            try await store.putControls(appId: "a", installationId: installation, [Control(kind: "c", pushToken: "cc01")], now: now)
            try await store.putFileProvider(appId: "a", installationId: installation, FileProviderRegistration(pushToken: "ff01", domains: [FileProviderDomain(id: "d", replicated: false)]), now: now)
        }
        func holdsAll(_ installation: String) async throws -> Bool {
            let snapshot = try await store.installation(appId: "a", id: installation, now: now)
            return snapshot?.widgets?.pushToken == "aa01" && snapshot?.controls.map(\.pushToken) == ["cc01"] && snapshot?.fileProvider?.pushToken == "ff01"
        }
        try await register("old", user: "u1")
        try await register("stranger", user: "u2")
        #expect(try await holdsAll("old"), "another user's device cannot take the tokens")
        try await register("new", user: "u1")
        let (oldHolds, newHolds) = (try await holdsAll("old"), try await holdsAll("new"))
        #expect(!oldHolds && newHolds, "the same user's reinstall takes them over")
        let old = try await store.installation(appId: "a", id: "old", now: now)
        #expect(old?.widgets == nil && old?.controls == [] && old?.fileProvider == nil)
        #expect(try await holdsAll("stranger"))
    }

    /// An older revision is refused with the current one and changes nothing; the same one again is applied. Quotas
    /// refuse a new installation or enumerator beyond the limit, never a renewal.
    func revisionsAndQuotasRefuseWrites() async throws {
        let installation = Installation(id: "i", userId: "u", channels: ["a"], environment: .sandbox)
        try await store.putInstallation(appId: "a", installation, now: now, maxPerUser: 1, revision: 3)
        let stale = await #expect(throws: StoreError.self) {
            try await store.putInstallation(appId: "a", Installation(id: "i", userId: "u", channels: ["old"], environment: .sandbox), now: now, maxPerUser: nil, revision: 2)
        }
        #expect(stale?.code == .conflict && stale?.currentRevision == 3)
        try await store.putInstallation(appId: "a", Installation(id: "i", userId: "u", channels: ["b"], environment: .sandbox), now: now, maxPerUser: 1, revision: 3)
        #expect(try await store.installation(appId: "a", id: "i", now: now)?.installation.channels == ["b"], "a renewal is within the quota")
        let quota = await #expect(throws: StoreError.self) {
            try await store.putInstallation(appId: "a", Installation(id: "i2", userId: "u", channels: [], environment: .sandbox), now: now, maxPerUser: 1)
        }
        #expect(quota?.code == .quotaExceeded)
        try await store.putControls(appId: "a", installationId: "i", [Control(kind: "k", pushToken: "02")], now: now, revision: 9)
        await #expect(throws: StoreError.self) {
            try await store.putControls(appId: "a", installationId: "i", [Control(kind: "k", pushToken: "01")], now: now, revision: 8)
        }
        #expect(try await store.installation(appId: "a", id: "i", now: now)?.controls.map(\.pushToken) == ["02"])
        let registration = FileProviderRegistration(pushToken: "ff", domains: [.init(id: "d", replicated: false)])
        try await store.putFileProvider(appId: "a", installationId: "i", registration, now: now, revision: 2)
        try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d", container: "c1", expiresAt: now + 60), now: now, maxLive: 1)
        try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d", container: "c1", expiresAt: now + 90), now: now, maxLive: 1)
        let enumerators = await #expect(throws: StoreError.self) {
            try await store.putEnumerator(appId: "a", installationId: "i", Enumerator(domain: "d", container: "c2", expiresAt: now + 60), now: now, maxLive: 1)
        }
        #expect(enumerators?.code == .quotaExceeded)
        await #expect(throws: StoreError.self) { try await store.deleteFileProvider(appId: "a", installationId: "i", now: now, revision: 1) }
        #expect(try await store.deleteFileProvider(appId: "a", installationId: "i", now: now, revision: 3))
        #expect(try await !store.deleteFileProvider(appId: "a", installationId: "i", now: now, revision: 3), "nothing left to remove")
        await #expect(throws: StoreError.self) { try await store.putFileProvider(appId: "a", installationId: "i", registration, now: now, revision: 2) }
        let snapshot = try await store.installation(appId: "a", id: "i", now: now)
        #expect(snapshot?.fileProvider == nil && snapshot?.enumerators == [], "a late PUT does not revive it")
    }

    func quotesInValuesAreData() async throws {
        let id = "o'brien\"; DROP TABLE apps; --"
        try await store.putInstallation(appId: "a", Installation(id: id, userId: id, channels: [id], environment: .sandbox), now: now)
        #expect(try await store.installation(appId: "a", id: id, now: now)?.installation.userId == id)
        #expect(try await store.deleteInstallation(appId: "a", id: id))
    }
}

/// The conformance suite on every backend, memory included; then what only SQL shows: instances writing one
/// database at once (PostgreSQL), and a file reopened with its migrations (SQLite).
@Suite struct RegistryStoreTests {
    @Test(arguments: StoreBackend.available) func appsRoundTripAndStayApart(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).appsRoundTripAndStayApart() }
    }
    @Test(arguments: StoreBackend.available) func registrationsReplaceTheirSets(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).registrationsReplaceTheirSets() }
    }
    @Test(arguments: StoreBackend.available) func identicalWritesOnlyTouchLastSeen(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).identicalWritesOnlyTouchLastSeen() }
    }
    @Test(arguments: StoreBackend.available) func writesNeedTheirParents(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).writesNeedTheirParents() }
    }
    @Test(arguments: StoreBackend.available) func concurrentWritesEachGetTheirOwnAnswer(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).concurrentWritesEachGetTheirOwnAnswer() }
    }
    @Test(arguments: StoreBackend.available) func leasesExpireAndAreCleanedUp(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).leasesExpireAndAreCleanedUp() }
    }
    @Test(arguments: StoreBackend.available) func onlyTheSameUsersInstallationGivesATokenUp(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).onlyTheSameUsersInstallationGivesATokenUp() }
    }
    @Test(arguments: StoreBackend.available) func revisionsAndQuotasRefuseWrites(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).revisionsAndQuotasRefuseWrites() }
    }
    @Test(arguments: StoreBackend.available) func quotesInValuesAreData(_ backend: StoreBackend) async throws {
        try await backend.withStore { try await RegistryStoreConformance(store: $0.registry).quotesInValuesAreData() }
    }

    /// PostgreSQL only (instances sharing one database at once). Two instances writing one resource with revisions at once: whatever the interleaving, the newest revision's
    /// write is the one stored (an older one either lands first or is refused).
    @Test(arguments: Backend.shared) func concurrentRevisionedWritesLandInRevisionOrder(_ backend: Backend) async throws {
        try await backend.withStores(2) { stores in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await stores[0].registry.createApp(AppRecord.fixture("a"))
            for round in 0..<5 {
                let id = "i\(round)"
                try await stores[0].registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for revision in 1...20 {
                        group.addTask {
                            let control = Control(kind: "c", pushToken: String(format: "%04x", revision))
                            do {
                                try await stores[revision % 2].registry.putControls(appId: "a", installationId: id, [control], now: now, revision: Int64(revision))
                            } catch let error as StoreError where error.code == .conflict {}
                        }
                    }
                    try await group.waitForAll()
                }
                let stored = try await stores[round % 2].registry.installation(appId: "a", id: id, now: now)
                #expect(stored?.controls.map(\.pushToken) == ["0014"], "round \(round): revision 20's write is the one stored")
            }
        }
    }

    /// SQLite only: a file reopened by the next process, with its migrations.
    @Test func dataSurvivesReopeningAndMigrationsRunOnce() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-test-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await closing(try await SQLStores.sqlite(path: path, logger: .init(label: "test"))) { first in
            try await first.registry.createApp(AppRecord.fixture("a"))
        }
        try await closing(try await SQLStores.sqlite(path: path, logger: .init(label: "test"))) { second in
            let apps = try await second.registry.apps()
            #expect(apps.map(\.id) == ["a"])
        }
    }
}
