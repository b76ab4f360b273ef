import Foundation
import SignalboxAPNs
import SignalboxStore
import Synchronization

/// Each app's signing key and provider-token manager, unsealed once and cached; apps on one key share its manager.
final class AppCredentials: Sendable {
    struct Entry: Sendable {
        let bundleId: String
        let tokens: ProviderTokenManager
    }

    private let store: any RegistryStore
    private let secrets: SecretBox
    private let onLoad: @Sendable (SigningKey) -> Void
    private let cache = Mutex<[String: Entry]>([:])
    private let tokenManagers = ProviderTokenManagers()
    /// Loads under way: the first thousand pushes of an event all miss the cache; one reads and unseals.
    private let loading = Mutex<[String: Task<Entry?, any Error>]>([:])

    /// - Parameter onLoad: called with each key when first loaded (local mode trusts it in the simulator).
    init(store: any RegistryStore, secrets: SecretBox, onLoad: @escaping @Sendable (SigningKey) -> Void) {
        self.store = store
        self.secrets = secrets
        self.onLoad = onLoad
    }

    /// The app's credentials; `nil` when the app no longer exists.
    /// - Throws: when storage fails or the stored key cannot be unsealed or parsed.
    func entry(appId: String) async throws -> Entry? {
        if let cached = cache.withLock({ $0[appId] }) { return cached }
        let load = loading.withLock { loading in
            if let running = loading[appId] { return running }
            let task = Task { try await self.load(appId: appId) }
            loading[appId] = task
            return task
        }
        defer { _ = loading.withLock { $0.removeValue(forKey: appId) } }
        return try await load.value
    }

    private func load(appId: String) async throws -> Entry? {
        guard let app = try await store.app(id: appId) else { return nil }
        let key = try SigningKey(pem: try secrets.open(app.sealedPrivateKey, appId: app.id, column: .privateKey), keyId: app.keyId, teamId: app.teamId)
        let entry = Entry(bundleId: app.bundleId, tokens: tokenManagers.manager(for: key))
        onLoad(key)
        cache.withLock { $0[appId] = entry }
        return entry
    }

    func forget(appId: String) {
        _ = cache.withLock { $0.removeValue(forKey: appId) }
    }
}

/// Apps whose sending is paused after a credentials problem, shown by `/readyz`.
final class AppPauses: Sendable {
    struct Pause: Sendable, Hashable {
        let reason: String
        let until: Date
    }

    private let pauses = Mutex<[String: Pause]>([:])

    func pause(appId: String, reason: String, until: Date) {
        pauses.withLock { $0[appId] = Pause(reason: reason, until: until) }
    }

    /// Apps paused at `now`; ended pauses are dropped.
    func active(at now: Date) -> [String: Pause] {
        pauses.withLock { pauses in
            pauses = pauses.filter { $0.value.until > now }
            return pauses
        }
    }
}
