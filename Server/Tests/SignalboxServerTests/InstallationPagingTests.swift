import Foundation
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// `installationIds(appId:after:limit:)`, the pages of `GET /v1/apps/{appId}/installations`: every id once, in the
/// backend's order, only the app's.
struct InstallationPagingTests {
    @Test(arguments: Backend.available) func pagesListEveryInstallationOnceAndOnlyTheApps(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await store.registry.createApp(AppRecord.fixture("b"))
            let ids = (0..<23).map { "inst-\($0)" } + ["Zed", "a_b", "é-accent"]
            for id in ids {
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
            }
            try await store.registry.putInstallation(appId: "b", Installation(id: "other", userId: nil, channels: [], environment: .sandbox), now: now)
            var seen: [String] = []
            var after: String?
            repeat {
                let page = try await store.deliveryLog.installationIds(appId: "a", after: after, limit: 5)
                seen += page
                after = page.count == 5 ? page.last : nil
            } while after != nil
            #expect(seen.count == ids.count)
            #expect(Set(seen) == Set(ids))
            #expect(try await store.deliveryLog.installationIds(appId: "b", after: nil, limit: 10) == ["other"])
            #expect(try await store.deliveryLog.installationIds(appId: "c", after: nil, limit: 10).isEmpty)
        }
    }
}
