import Foundation
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// `SigningKeyStore` on every backend: an app's own key, keys of single environments, and their removal.
@Suite struct SigningKeyStoreTests {
    @Test(arguments: Backend.available) func keysAreReplacedPerEnvironmentOrForBoth(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await store.registry.createApp(AppRecord.fixture("b"))
            let sandbox = StoredSigningKey(teamId: "TEAMSANDBX", keyId: "KEYSANDBOX", sealedPrivateKey: [9, 8, 7])
            #expect(try await store.signingKeys.replaceSigningKey(appId: "a", environment: .sandbox, sandbox))
            #expect(try await store.signingKeys.environmentSigningKeys(appId: "a") == [.sandbox: sandbox])
            #expect(try await store.signingKeys.environmentSigningKeys(appId: "b").isEmpty, "apps never see each other's keys")
            #expect(try await store.registry.app(id: "a")?.keyId == "KEY1234567", "the app's own key still serves production")
            let newer = StoredSigningKey(teamId: "TEAMSANDBX", keyId: "KEYSANDBX2", sealedPrivateKey: [6])
            #expect(try await store.signingKeys.replaceSigningKey(appId: "a", environment: .sandbox, newer))
            #expect(try await store.signingKeys.environmentSigningKeys(appId: "a") == [.sandbox: newer])
            // A key for both replaces the app's own and drops the single-environment ones.
            let both = StoredSigningKey(teamId: "TEAMBOTH01", keyId: "KEYBOTH001", sealedPrivateKey: [5, 4])
            #expect(try await store.signingKeys.replaceSigningKey(appId: "a", environment: nil, both))
            let app = try #require(try await store.registry.app(id: "a"))
            #expect(app.teamId == "TEAMBOTH01" && app.keyId == "KEYBOTH001" && app.sealedPrivateKey == [5, 4])
            #expect(try await store.signingKeys.environmentSigningKeys(appId: "a").isEmpty)
            #expect(try await !store.signingKeys.replaceSigningKey(appId: "zz", environment: .production, both))
            #expect(try await store.signingKeys.replaceSigningKey(appId: "b", environment: .production, both))
            #expect(try await store.registry.deleteApp(id: "b"))
            #expect(try await store.signingKeys.environmentSigningKeys(appId: "b").isEmpty, "deleted with its app")
        }
    }
}
