import Foundation
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel
import Synchronization

/// Each app's signing keys and their provider-token managers, unsealed and cached; apps on one key share its
/// manager. An entry is read again after `refreshAfter`, so a key replaced through another instance is used here
/// within that time; pushes already holding an entry finish with the key they started with.
final class AppCredentials: Sendable {
    typealias Entry = PushSender.Credentials

    /// How long a loaded entry is used before the app's keys are read again.
    static let refreshAfter: Duration = .seconds(30)

    private let registry: any RegistryStore
    private let signingKeys: any SigningKeyStore
    private let providerTokens: any SharedProviderTokens
    private let secrets: SecretBox
    private let now: @Sendable () -> Date
    private let onLoad: @Sendable (SigningKey) -> Void
    private let cache = Mutex<[String: (entry: Entry, loadedAt: Date)]>([:])
    private let tokenManagers: ProviderTokenManagers
    /// Loads under way: the first thousand pushes of an event all miss the cache; one reads and unseals.
    private let loading = Mutex<[String: Task<Entry?, any Error>]>([:])

    /// - Parameter onLoad: called with each key when first loaded (local mode trusts it in the simulator).
    init(
        registry: any RegistryStore, signingKeys: any SigningKeyStore, providerTokens: any SharedProviderTokens, secrets: SecretBox,
        now: @escaping @Sendable () -> Date, onLoad: @escaping @Sendable (SigningKey) -> Void
    ) {
        self.registry = registry
        self.signingKeys = signingKeys
        self.providerTokens = providerTokens
        self.secrets = secrets
        self.now = now
        self.onLoad = onLoad
        tokenManagers = ProviderTokenManagers(now: now)
    }

    /// The app's credentials if loaded and not due for a refresh; `nil` otherwise (`entry` then loads them).
    func cachedEntry(appId: String) -> Entry? {
        cache.withLock { $0[appId] }.flatMap { isFresh($0.loadedAt) ? $0.entry : nil }
    }

    private func isFresh(_ loadedAt: Date) -> Bool { now().timeIntervalSince(loadedAt) < Self.refreshAfter.seconds }

    /// The app's credentials; `nil` when the app no longer exists.
    /// - Throws: when storage fails or the stored key cannot be unsealed or parsed.
    func entry(appId: String) async throws -> Entry? {
        let cached = cache.withLock { $0[appId] }
        if let cached, isFresh(cached.loadedAt) { return cached.entry }
        let load = loading.withLock { loading in
            if let running = loading[appId] { return running }
            let task = Task { try await self.load(appId: appId) }
            loading[appId] = task
            return task
        }
        defer { _ = loading.withLock { $0.removeValue(forKey: appId) } }
        do {
            return try await load.value
        } catch {
            // Storage hiccup on a refresh: keep sending with the keys already known.
            if let cached { return cached.entry }
            throw error
        }
    }

    private func load(appId: String) async throws -> Entry? {
        guard let app = try await registry.app(id: appId) else {
            forget(appId: appId)
            return nil
        }
        let key = try SigningKey(pem: try secrets.open(app.sealedPrivateKey, appId: app.id, column: .privateKey), keyId: app.keyId, teamId: app.teamId)
        var environmentTokens: [APNsEnvironment: ProviderTokenManager] = [:]
        for (environment, stored) in try await signingKeys.environmentSigningKeys(appId: appId) {
            let pem = try secrets.open(stored.sealedPrivateKey, appId: app.id, column: .privateKey(for: environment))
            environmentTokens[environment.apns] = await manager(for: try SigningKey(pem: pem, keyId: stored.keyId, teamId: stored.teamId))
        }
        let entry = Entry(bundleId: app.bundleId, tokens: await manager(for: key), environmentTokens: environmentTokens)
        cache.withLock { $0[appId] = (entry, now()) }
        return entry
    }

    /// The shared manager of `key`, holding the token the other instances use if any (else minting locally).
    func manager(for key: SigningKey) async -> ProviderTokenManager {
        let manager = tokenManagers.manager(for: key)
        try? await share(manager)
        onLoad(key)
        return manager
    }

    /// Tokens are shared once this old: before a manager's own refresh (50 minutes), so the instances replace a
    /// key's token together, and never sooner than 20 minutes after the last change on a connection.
    static let shareAge: Duration = .seconds(45 * 60)

    /// Makes `manager` use its key's shared token (minting and storing one if none is young enough) when it has
    /// no token yet or its token is `shareAge` old (`apns.md` §3.4: one token for all provider processes).
    func share(_ manager: ProviderTokenManager) async throws {
        let now = now()
        if let token = manager.token, now.timeIntervalSince(token.issuedAt) < Self.shareAge.seconds { return }
        let key = manager.key
        let id = SigningKeyID(teamId: key.teamId, keyId: key.keyId, fingerprint: key.fingerprint)
        let name = "\(id.teamId).\(id.keyId).\(id.fingerprint)"
        let secrets = secrets
        let stored = try await providerTokens.sharedProviderToken(key: id, now: now, maxAge: Self.shareAge) {
            let token = key.providerToken(issuedAt: now)
            return SealedProviderToken(sealed: try secrets.seal(token.jwt, appId: name, column: .providerToken), issuedAt: token.issuedAt)
        }
        let jwt = try secrets.open(stored.sealed, appId: name, column: .providerToken)
        guard let parsed = ProviderToken.parse(jwt), parsed.keyId == key.keyId, parsed.teamId == key.teamId, parsed.isSigned(by: key.publicKey) else {
            return
        }
        manager.adopt(ProviderToken(jwt: jwt, issuedAt: stored.issuedAt))
    }

    /// Shares the token of every key whose token is due (run every minute).
    func shareDueTokens() async throws {
        for manager in tokenManagers.all { try await share(manager) }
    }

    func forget(appId: String) {
        _ = cache.withLock { $0.removeValue(forKey: appId) }
    }
}
