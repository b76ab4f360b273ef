import Foundation
import SQLKit
import SignalboxModel

/// Signing keys: the app's own in `apps`, keys of single environments in `app_signing_keys`.
struct SQLSigningKeys: SigningKeyStore, SQLStore {
    let database: SQLDatabaseClient

    func replaceSigningKey(appId: String, environment: Environment?, _ key: StoredSigningKey) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)\(self.backend.forUpdate)").first() != nil else { return false }
            let sealed = Data(key.sealedPrivateKey).base64EncodedString()
            guard let environment else {
                try await db.raw("""
                    UPDATE apps SET team_id = \(bind: key.teamId), key_id = \(bind: key.keyId), sealed_private_key = \(bind: sealed)
                    WHERE app_id = \(bind: appId)
                    """).run()
                try await db.raw("DELETE FROM app_signing_keys WHERE app_id = \(bind: appId)").run()
                return true
            }
            try await db.raw("DELETE FROM app_signing_keys WHERE app_id = \(bind: appId) AND environment = \(bind: environment.rawValue)").run()
            try await db.raw("""
                INSERT INTO app_signing_keys (app_id, environment, team_id, key_id, sealed_private_key)
                VALUES (\(bind: appId), \(bind: environment.rawValue), \(bind: key.teamId), \(bind: key.keyId), \(bind: sealed))
                """).run()
            return true
        }
    }

    func environmentSigningKeys(appId: String) async throws -> [Environment: StoredSigningKey] {
        try await oneStatement { db in
            var keys: [Environment: StoredSigningKey] = [:]
            for row in try await db.raw("SELECT * FROM app_signing_keys WHERE app_id = \(bind: appId)").all() {
                guard let environment = Environment(rawValue: try row.decode(column: "environment", as: String.self)) else { continue }
                keys[environment] = StoredSigningKey(
                    teamId: try row.decode(column: "team_id", as: String.self), keyId: try row.decode(column: "key_id", as: String.self),
                    sealedPrivateKey: Array(Data(base64Encoded: try row.decode(column: "sealed_private_key", as: String.self)) ?? Data())
                )
            }
            return keys
        }
    }
}
