import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// A registration write's client revision: a snapshot older than the stored one arrived late and is refused,
/// so a retried or delayed request never undoes a newer one.
struct RevisionClaim: Sendable {
    var resource: String
    var revision: Int64

    /// An enumerator's PUT and DELETE share one revision, so a late renewal cannot revive an invalidated lease.
    static func enumerator(domain: String, container: String, revision: Int64) -> RevisionClaim {
        RevisionClaim(resource: "enumerator/\(domain)/\(container)", revision: revision)
    }
}

extension SQLRegistry {
    /// Records the claim's revision before its write, or throws `StoreError.conflict` with the current revision
    /// when the stored one is newer (changing nothing). One upsert: it locks the revision row until the write
    /// commits, so two instances writing one resource at once cannot both pass a check and land out of order.
    static func claimRevision(_ db: any SQLDatabase, appId: String, installationId: String, _ claim: RevisionClaim) async throws {
        let accepted = try await db.raw("""
            INSERT INTO registration_revisions (app_id, installation_id, resource, revision)
            VALUES (\(bind: appId), \(bind: installationId), \(bind: claim.resource), \(bind: claim.revision))
            ON CONFLICT (app_id, installation_id, resource) DO UPDATE SET revision = excluded.revision
            WHERE registration_revisions.revision <= excluded.revision
            RETURNING revision
            """).first()
        guard accepted == nil else { return }
        let current = try await db.raw("""
            SELECT revision FROM registration_revisions
            WHERE app_id = \(bind: appId) AND installation_id = \(bind: installationId) AND resource = \(bind: claim.resource)
            """).first()?.decode(column: "revision", as: Int64.self)
        throw StoreError(
            .conflict, "revision \(claim.revision) of \(claim.resource) is older than the current revision \(current.map(String.init) ?? "?")",
            currentRevision: current
        )
    }

    func putControls(appId: String, installationId: String, _ controls: [Control], now: Date, revision: Int64?) async throws {
        guard let revision else { return try await putControls(appId: appId, installationId: installationId, controls, now: now) }
        // With a revision, alone in the registration group: the claim and the write share one transaction.
        let write = ControlsWrite(appId: appId, installationId: installationId, controls: controls, now: now)
        try await writeRegistration(appId: appId, installationId: installationId, now: now, claim: RevisionClaim(resource: "controls", revision: revision)) { db, _ in
            _ = try await Self.putControls(db, appId: appId, [write])
        }
    }

    /// A token belongs to one device: after a reinstall the new installation registers the old token, and the
    /// old installation (never heard from again) must not draw a second push for it. Only installations of the same
    /// user (or both without one) give a token up: a device cannot take another user's token and registrations.
    static func moveWidgetToken(_ db: any SQLDatabase, appId: String, to installationId: String, token: String, now: Date) async throws {
        let others = sameUserHolders(table: "widget_tokens", appId: appId, installationId: installationId, token: token)
        try await db.raw("DELETE FROM widgets WHERE app_id = \(bind: appId) AND installation_id IN (\(others))").run()
        let moved = try await db.raw("DELETE FROM widget_tokens WHERE app_id = \(bind: appId) AND installation_id IN (\(others)) RETURNING installation_id")
            .all().map { try $0.decode(column: "installation_id", as: String.self) }
        try await SQLWebhooks.recordMovedToken(db, appId: appId, token: token, kind: "widgets", from: moved, to: installationId, now: now)
    }

    /// As `moveWidgetToken`; the old installation's domains and enumerators go with its token.
    static func moveFileProviderToken(_ db: any SQLDatabase, appId: String, to installationId: String, token: String, now: Date) async throws {
        let others = sameUserHolders(table: "file_provider_tokens", appId: appId, installationId: installationId, token: token)
        for table in ["enumerators", "file_provider_domains"] {
            try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(bind: appId) AND installation_id IN (\(others))").run()
        }
        let moved = try await db.raw("DELETE FROM file_provider_tokens WHERE app_id = \(bind: appId) AND installation_id IN (\(others)) RETURNING installation_id")
            .all().map { try $0.decode(column: "installation_id", as: String.self) }
        try await SQLWebhooks.recordMovedToken(db, appId: appId, token: token, kind: "fileprovider", from: moved, to: installationId, now: now)
    }

    /// The other installations of `installationId`'s user that hold `token` in `table`.
    private static func sameUserHolders(table: String, appId: String, installationId: String, token: String) -> SQLQueryString {
        """
        SELECT t.installation_id FROM \(unsafeRaw: table) t
        JOIN installations holder ON holder.app_id = t.app_id AND holder.installation_id = t.installation_id
        JOIN installations writer ON writer.app_id = t.app_id AND writer.installation_id = \(bind: installationId)
        WHERE t.app_id = \(bind: appId) AND t.push_token = \(bind: token) AND t.installation_id <> \(bind: installationId)
            AND holder.user_id IS NOT DISTINCT FROM writer.user_id
        """
    }

    /// As `moveWidgetToken`, for the control tokens just written by a group of installations: one statement
    /// per 500 tokens. `push_token IN` lets the token index find the rows; without it each statement scanned every
    /// control of the app. (Two installations of one group that claim the same token both keep it until a later write.)
    static func moveControlTokens(_ db: any SQLDatabase, appId: String, _ writes: [(installationId: String, tokens: [String])], now: Date) async throws {
        let writers = writes.map(\.installationId)
        let pairs = writes.flatMap { write in write.tokens.map { (token: $0, writer: write.installationId) } }
        for chunk in pairs.chunked(500) {
            let values = chunk.map { pair -> SQLQueryString in "(\(bind: pair.token), \(bind: pair.writer))" }
            let writer = Dictionary(chunk.map { ($0.token, $0.writer) }, uniquingKeysWith: { first, _ in first })
            let moved = try await db.raw("""
                DELETE FROM controls WHERE app_id = \(bind: appId) AND push_token IN (\(binds: chunk.map(\.token)))
                    AND installation_id NOT IN (\(binds: writers)) AND EXISTS (
                    SELECT 1 FROM (VALUES \(values.joined(separator: ", "))) AS w
                    JOIN installations writer ON writer.app_id = controls.app_id AND writer.installation_id = w.column2
                    JOIN installations holder ON holder.app_id = controls.app_id AND holder.installation_id = controls.installation_id
                    WHERE w.column1 = controls.push_token AND holder.user_id IS NOT DISTINCT FROM writer.user_id)
                RETURNING installation_id, push_token
                """).all()
            // A holder with the token in several controls gave it up once.
            var from: [String: Set<String>] = [:]
            for row in moved {
                from[try row.decode(column: "push_token", as: String.self), default: []].insert(try row.decode(column: "installation_id", as: String.self))
            }
            for (token, holders) in from.sorted(by: { $0.key < $1.key }) {
                guard let to = writer[token] else { continue }
                try await SQLWebhooks.recordMovedToken(db, appId: appId, token: token, kind: "controls", from: Array(holders), to: to, now: now)
            }
        }
    }
}
