import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// `RegistryStore` in SQL: apps, installations and their registrations (widgets, controls, File Provider domains
/// and enumerators) with their revisions. Each call runs in one transaction.
struct SQLRegistry: RegistryStore, SQLStore {
    let database: SQLDatabaseClient
    /// Concurrent registrations share transactions (see `GroupCommit`).
    let installationWrites = GroupCommit<InstallationWrite>()
    let controlWrites = GroupCommit<ControlsWrite>()
    let registrationWrites = GroupCommit<RegistrationWrite>()

    func ping() async throws {
        try await database.ping()
    }

    // MARK: Apps

    func createApp(_ app: AppRecord) async throws {
        try await transaction { db in
            let existing = try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: app.id)").first()
            guard existing == nil else { throw StoreError(.conflict, "app \(app.id) exists") }
            try await db.raw("""
                INSERT INTO apps (app_id, bundle_id, team_id, key_id, environment, sealed_private_key, sealed_device_secret,
                    server_key_hash, created_at, previous_sealed_device_secret, previous_device_secret_expires_at, device_token_lifetime)
                VALUES (\(bind: app.id), \(bind: app.bundleId), \(bind: app.teamId), \(bind: app.keyId),
                    \(bind: app.environment.rawValue), \(bind: Data(app.sealedPrivateKey).base64EncodedString()),
                    \(bind: Data(app.sealedDeviceSecret).base64EncodedString()), \(bind: app.serverKeyHash),
                    \(bind: app.createdAt.milliseconds), \(bind: app.previousSealedDeviceSecret.map { Data($0).base64EncodedString() }),
                    \(bind: app.previousDeviceSecretExpiresAt?.milliseconds), \(bind: app.deviceTokenLifetime))
                """).run()
        }
    }

    func app(id: String) async throws -> AppRecord? {
        try await oneStatement { db in try await db.raw("SELECT * FROM apps WHERE app_id = \(bind: id)").first().map(Self.app) }
    }

    func app(serverKeyHash: String) async throws -> AppRecord? {
        try await oneStatement { db in
            try await db.raw("SELECT * FROM apps WHERE server_key_hash = \(bind: serverKeyHash)").first().map(Self.app)
        }
    }

    func apps() async throws -> [AppRecord] {
        try await oneStatement { db in try await db.raw("SELECT * FROM apps ORDER BY created_at, app_id").all().map(Self.app) }
    }

    func deleteApp(id: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: id)").first() != nil else { return false }
            for table in ["installations"] + Migrations.installationTables + Migrations.appTables {
                try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: id)").run()
            }
            try await db.raw("DELETE FROM apps WHERE app_id = \(bind: id)").run()
            return true
        }
    }

    func updateServerKeyHash(appId: String, hash: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)").first() != nil else { return false }
            try await db.raw("UPDATE apps SET server_key_hash = \(bind: hash) WHERE app_id = \(bind: appId)").run()
            return true
        }
    }

    /// Replaces the sealed columns of an app (re-sealing at start). - Returns: whether the app exists.
    func updateSealedSecrets(_ app: AppRecord) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: app.id)").first() != nil else { return false }
            try await db.raw("""
                UPDATE apps SET sealed_private_key = \(bind: Data(app.sealedPrivateKey).base64EncodedString()),
                    sealed_device_secret = \(bind: Data(app.sealedDeviceSecret).base64EncodedString()),
                    previous_sealed_device_secret = \(bind: app.previousSealedDeviceSecret.map { Data($0).base64EncodedString() })
                WHERE app_id = \(bind: app.id)
                """).run()
            return true
        }
    }

    func rotateDeviceSecret(appId: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)").first() != nil else { return false }
            try await db.raw("""
                UPDATE apps SET sealed_device_secret = \(bind: Data(sealed).base64EncodedString()),
                    previous_sealed_device_secret = \(bind: previous.map { Data($0).base64EncodedString() }),
                    previous_device_secret_expires_at = \(bind: previousExpiresAt?.milliseconds)
                WHERE app_id = \(bind: appId)
                """).run()
            return true
        }
    }

    func setDeviceTokenLifetime(appId: String, seconds: Int) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)").first() != nil else { return false }
            try await db.raw("UPDATE apps SET device_token_lifetime = \(bind: seconds) WHERE app_id = \(bind: appId)").run()
            return true
        }
    }

    private static func app(_ row: any SQLRow) throws -> AppRecord {
        AppRecord(
            id: try row.decode(column: "app_id", as: String.self),
            bundleId: try row.decode(column: "bundle_id", as: String.self),
            teamId: try row.decode(column: "team_id", as: String.self),
            keyId: try row.decode(column: "key_id", as: String.self),
            environment: try row.decode(stored: "environment", as: Environment.self),
            sealedPrivateKey: Array(Data(base64Encoded: try row.decode(column: "sealed_private_key", as: String.self)) ?? Data()),
            sealedDeviceSecret: Array(Data(base64Encoded: try row.decode(column: "sealed_device_secret", as: String.self)) ?? Data()),
            serverKeyHash: try row.decode(column: "server_key_hash", as: String.self),
            createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self)),
            previousSealedDeviceSecret: try row.decode(column: "previous_sealed_device_secret", as: String?.self)
                .map { Array(Data(base64Encoded: $0) ?? Data()) },
            previousDeviceSecretExpiresAt: try row.decode(column: "previous_device_secret_expires_at", as: Int64?.self).map(Date.init(milliseconds:)),
            deviceTokenLifetime: try row.decode(column: "device_token_lifetime", as: Int.self)
        )
    }
}
