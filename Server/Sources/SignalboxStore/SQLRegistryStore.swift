import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// `RegistryStore` and `DeliveryStore` in portable SQL over SQLKit, on SQLite or PostgreSQL (see `SQLBackend`
/// for what differs). Each call runs in one transaction.
public final class SQLRegistryStore: RegistryStore {
    let connector: any SQLConnector
    /// Who this process is in the outbox's claims: fresh for every process, so a restart never completes the
    /// claims of the process before it.
    let owner = PushIds.next()
    /// How long a claim stays this process's; a claim older than that is another instance's to take over.
    let claimLease: Duration
    /// Whether push answers are written to the delivery log (`deliveryLog.maxLines` 0 turns it off).
    let writesDeliveryLog: Bool
    /// Concurrent registrations share transactions (see `GroupCommit`).
    let installationWrites = GroupCommit<InstallationWrite>()
    let controlWrites = GroupCommit<ControlsWrite>()
    let registrationWrites = GroupCommit<RegistrationWrite>()

    init(connector: any SQLConnector, claimLease: Duration = .seconds(60), deliveryLog: Bool = true) {
        self.connector = connector
        self.claimLease = claimLease
        writesDeliveryLog = deliveryLog
    }

    /// Which database this store runs on.
    public var backend: SQLBackend { connector.backend }

    /// Closes the connections once running work is done; call it before the store goes away.
    public func close() async throws {
        try await connector.close()
    }

    /// Applies the migrations this database has not seen.
    /// - Throws: `StoreError(.unavailable)` when the database was migrated by a newer Signalbox.
    func migrate() async throws {
        try await connector.migrating { db in
            try await db.raw("CREATE TABLE IF NOT EXISTS signalbox_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)").run()
            let applied = Set(try await db.raw("SELECT version FROM signalbox_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
            if let newest = applied.max(), newest > Migrations.steps.count {
                throw StoreError(.unavailable, "the database has schema version \(newest), newer than this Signalbox knows (\(Migrations.steps.count)); run the newer Signalbox or restore a backup")
            }
            for (index, step) in Migrations.steps.enumerated() where !applied.contains(index + 1) {
                for statement in step { try await db.raw(SQLQueryString(statement)).run() }
                try await db.raw("INSERT INTO signalbox_migrations (version, applied_at) VALUES (\(bind: index + 1), \(bind: Date().milliseconds))").run()
            }
        }
    }

    /// Runs `body` in a transaction; rolls back when it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await connector.transaction(body)
    }

    /// Runs one statement (atomic by itself) without BEGIN/COMMIT: on SQLite each statement costs a thread hop,
    /// so a transaction around a single one doubles its price.
    func oneStatement<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await connector.withDatabase(body)
    }

    public func ping() async throws {
        try await oneStatement { db in try await db.raw("SELECT 1 AS one").run() }
    }

    // MARK: Apps

    public func createApp(_ app: AppRecord) async throws {
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

    public func app(id: String) async throws -> AppRecord? {
        try await oneStatement { db in try await db.raw("SELECT * FROM apps WHERE app_id = \(bind: id)").first().map(Self.app) }
    }

    public func app(serverKeyHash: String) async throws -> AppRecord? {
        try await oneStatement { db in
            try await db.raw("SELECT * FROM apps WHERE server_key_hash = \(bind: serverKeyHash)").first().map(Self.app)
        }
    }

    public func apps() async throws -> [AppRecord] {
        try await oneStatement { db in try await db.raw("SELECT * FROM apps ORDER BY created_at, app_id").all().map(Self.app) }
    }

    public func deleteApp(id: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: id)").first() != nil else { return false }
            for table in ["installations"] + Migrations.installationTables + Migrations.appTables {
                try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: id)").run()
            }
            try await db.raw("DELETE FROM apps WHERE app_id = \(bind: id)").run()
            return true
        }
    }

    public func updateServerKeyHash(appId: String, hash: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)").first() != nil else { return false }
            try await db.raw("UPDATE apps SET server_key_hash = \(bind: hash) WHERE app_id = \(bind: appId)").run()
            return true
        }
    }

    /// Replaces the sealed columns of an app (re-sealing at start). - Returns: whether the app exists.
    public func updateSealedSecrets(_ app: AppRecord) async throws -> Bool {
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

    public func rotateDeviceSecret(appId: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool {
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

    public func setDeviceTokenLifetime(appId: String, seconds: Int) async throws -> Bool {
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

extension Date {
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
