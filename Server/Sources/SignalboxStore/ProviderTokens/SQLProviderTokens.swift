import Foundation
import SQLKit
import SignalboxModel

/// The shared provider token of each signing key: the row is locked while one instance decides and mints.
struct SQLProviderTokens: SharedProviderTokens, SQLStore {
    let database: SQLDatabaseClient

    func sharedProviderToken(
        key: SigningKeyID, now: Date, maxAge: Duration, mint: @escaping @Sendable () throws -> SealedProviderToken
    ) async throws -> SealedProviderToken {
        let backend = backend
        return try await transaction { db in
            let row: SQLQueryString = "team_id = \(bind: key.teamId) AND key_id = \(bind: key.keyId) AND fingerprint = \(bind: key.fingerprint)"
            // A row to lock exists before anyone decides (an absent row cannot be locked).
            try await db.raw("""
                INSERT INTO provider_tokens (team_id, key_id, fingerprint, sealed_token, issued_at)
                VALUES (\(bind: key.teamId), \(bind: key.keyId), \(bind: key.fingerprint), '', 0) ON CONFLICT DO NOTHING
                """).run()
            if let stored = try await db.raw("SELECT sealed_token, issued_at FROM provider_tokens WHERE \(row)\(backend.forUpdate)").first() {
                let issuedAt = Date(milliseconds: try stored.decode(column: "issued_at", as: Int64.self))
                let sealed = Data(base64Encoded: try stored.decode(column: "sealed_token", as: String.self)).map(Array.init) ?? []
                if !sealed.isEmpty, now.timeIntervalSince(issuedAt) < maxAge.seconds, issuedAt <= now {
                    return SealedProviderToken(sealed: sealed, issuedAt: issuedAt)
                }
            }
            let minted = try mint()
            try await db.raw("""
                UPDATE provider_tokens SET sealed_token = \(bind: Data(minted.sealed).base64EncodedString()),
                    issued_at = \(bind: minted.issuedAt.milliseconds)
                WHERE \(row)
                """).run()
            return minted
        }
    }
}
