import Foundation
import SignalboxModel

/// Apps and their credentials.
extension MemoryStore: RegistryStore {
    public func ping() async throws {}

    public func createApp(_ app: AppRecord) async throws {
        try withState { state in
            guard state.apps[app.id] == nil, !state.apps.values.contains(where: { $0.serverKeyHash == app.serverKeyHash }) else {
                throw StoreError(.conflict, "app \(app.id) exists")
            }
            var stored = app
            stored.createdAt = app.createdAt.stored
            stored.previousDeviceSecretExpiresAt = app.previousDeviceSecretExpiresAt?.stored
            state.apps[app.id] = stored
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        withState { $0.apps[id] }
    }

    public func app(serverKeyHash: String) async throws -> AppRecord? {
        withState { $0.apps.values.first { $0.serverKeyHash == serverKeyHash } }
    }

    public func apps() async throws -> [AppRecord] {
        withState { $0.apps.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
    }

    /// Deletes the app with everything that hangs off it (the SQL's `appTables` and `installationTables`).
    public func deleteApp(id: String) async throws -> Bool {
        withState { state in
            guard state.apps.removeValue(forKey: id) != nil else { return false }
            state.installations = state.installations.filter { $0.key.appId != id }
            state.revisions = state.revisions.filter { $0.key.appId != id }
            state.events = state.events.filter { $0.value.record.appId != id }
            state.outbox = state.outbox.filter { $0.value.appId != id }
            state.pending = state.pending.filter { $0.key.appId != id }
            state.strikes = state.strikes.filter { $0.key.appId != id }
            state.intervals[id] = nil
            state.lastSent = state.lastSent.filter { $0.key.appId != id }
            return true
        }
    }

    public func updateServerKeyHash(appId: String, hash: String) async throws -> Bool {
        updateApp(appId) { $0.serverKeyHash = hash }
    }

    public func updateSealedSecrets(_ app: AppRecord) async throws -> Bool {
        updateApp(app.id) {
            $0.sealedPrivateKey = app.sealedPrivateKey
            $0.sealedDeviceSecret = app.sealedDeviceSecret
            $0.previousSealedDeviceSecret = app.previousSealedDeviceSecret
        }
    }

    public func rotateDeviceSecret(appId: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool {
        updateApp(appId) {
            $0.sealedDeviceSecret = sealed
            $0.previousSealedDeviceSecret = previous
            $0.previousDeviceSecretExpiresAt = previousExpiresAt?.stored
        }
    }

    public func setDeviceTokenLifetime(appId: String, seconds: Int) async throws -> Bool {
        updateApp(appId) { $0.deviceTokenLifetime = seconds }
    }

    /// Changes the app if it exists. - Returns: whether it does.
    private func updateApp(_ id: String, _ change: (inout AppRecord) -> Void) -> Bool {
        withState { state in
            guard var app = state.apps[id] else { return false }
            change(&app)
            state.apps[id] = app
            return true
        }
    }
}
