import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel
import Synchronization

extension SQLRegistry {
    func installationUser(appId: String, id: String) async throws -> String?? {
        try await oneStatement { db in
            guard let row = try await db.raw("""
                SELECT user_id FROM installations WHERE app_id = \(bind: appId) AND installation_id = \(bind: id)
                """).first()
            else { return nil }
            return .some(try row.decode(column: "user_id", as: String?.self))
        }
    }

    func installation(appId: String, id: String, now: Date) async throws -> InstallationSnapshot? {
        try await transaction { db in
            let key = "app_id = \(appId.sqlLiteral) AND installation_id = \(id.sqlLiteral)"
            guard let row = try await db.raw("SELECT * FROM installations WHERE \(unsafeRaw: key)").first() else { return nil }
            let channels = try JSONValue(json: try row.decode(column: "channels", as: String.self))
            let installation = Installation(
                id: id, userId: try row.decode(column: "user_id", as: String?.self),
                channels: channels.strings, environment: try row.decode(stored: "environment", as: Environment.self)
            )
            let widgets = try await Self.widgets(db, key: key)
            let controls = try await db.raw("SELECT * FROM controls WHERE \(unsafeRaw: key) ORDER BY position").all().map { row in
                Control(
                    kind: try row.decode(column: "kind", as: String.self),
                    configuration: try JSONValue(json: try row.decode(column: "configuration", as: String.self)),
                    pushToken: try row.decode(column: "push_token", as: String.self)
                )
            }
            let fileProvider = try await Self.fileProvider(db, key: key)
            let enumerators = try await db.raw("""
                SELECT * FROM enumerators WHERE \(unsafeRaw: key) AND expires_at > \(bind: now.milliseconds) ORDER BY domain_id, container_id
                """).all().map { row in
                Enumerator(
                    domain: try row.decode(column: "domain_id", as: String.self),
                    container: try row.decode(column: "container_id", as: String.self),
                    expiresAt: Date(milliseconds: try row.decode(column: "expires_at", as: Int64.self))
                )
            }
            return InstallationSnapshot(
                installation: installation, widgets: widgets, controls: controls, fileProvider: fileProvider,
                enumerators: enumerators, lastSeenAt: Date(milliseconds: try row.decode(column: "last_seen_at", as: Int64.self))
            )
        }
    }

    func deleteInstallation(appId: String, id: String) async throws -> Bool {
        try await transaction { db in
            let key = "app_id = \(appId.sqlLiteral) AND installation_id = \(id.sqlLiteral)"
            guard try await db.raw("SELECT app_id FROM installations WHERE \(unsafeRaw: key)").first() != nil else { return false }
            for table in ["installations"] + Migrations.installationTables {
                try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE \(unsafeRaw: key)").run()
            }
            return true
        }
    }

    func putWidgets(appId: String, installationId: String, _ registration: WidgetRegistration, now: Date, revision: Int64?) async throws {
        let claim = revision.map { RevisionClaim(resource: "widgets", revision: $0) }
        try await writeRegistration(appId: appId, installationId: installationId, now: now, claim: claim) { db, key in
            if try await Self.widgets(db, key: key) == registration {
                try await db.raw("UPDATE widget_tokens SET token_seen_at = \(bind: now.milliseconds) WHERE \(unsafeRaw: key)").run()
                return
            }
            try await db.raw("DELETE FROM widgets WHERE \(unsafeRaw: key)").run()
            try await db.raw("DELETE FROM widget_tokens WHERE \(unsafeRaw: key)").run()
            try await db.raw("""
                INSERT INTO widget_tokens (app_id, installation_id, push_token, token_seen_at)
                VALUES (\(bind: appId), \(bind: installationId), \(bind: registration.pushToken), \(bind: now.milliseconds))
                """).run()
            try await Self.moveWidgetToken(db, appId: appId, to: installationId, token: registration.pushToken, now: now)
            let rows = registration.widgets.enumerated().map { position, widget -> SQLQueryString in
                """
                (\(bind: appId), \(bind: installationId), \(bind: position), \(bind: widget.kind), \(bind: widget.family),
                    \(bind: widget.configuration.canonicalJSON))
                """
            }
            for rows in rows.chunked(100) {
                try await db.raw("INSERT INTO widgets (app_id, installation_id, position, kind, family, configuration) VALUES \(rows.joined(separator: ", "))").run()
            }
        }
    }

    func putFileProvider(appId: String, installationId: String, _ registration: FileProviderRegistration, now: Date, revision: Int64?) async throws {
        let claim = revision.map { RevisionClaim(resource: "file-provider", revision: $0) }
        try await writeRegistration(appId: appId, installationId: installationId, now: now, claim: claim) { db, key in
            if try await Self.fileProvider(db, key: key) == registration {
                try await db.raw("UPDATE file_provider_tokens SET token_seen_at = \(bind: now.milliseconds) WHERE \(unsafeRaw: key)").run()
                return
            }
            try await db.raw("DELETE FROM file_provider_tokens WHERE \(unsafeRaw: key)").run()
            try await db.raw("DELETE FROM file_provider_domains WHERE \(unsafeRaw: key)").run()
            try await db.raw("""
                INSERT INTO file_provider_tokens (app_id, installation_id, push_token, token_seen_at)
                VALUES (\(bind: appId), \(bind: installationId), \(bind: registration.pushToken), \(bind: now.milliseconds))
                """).run()
            try await Self.moveFileProviderToken(db, appId: appId, to: installationId, token: registration.pushToken, now: now)
            for domain in registration.domains {
                try await db.raw("""
                    INSERT INTO file_provider_domains (app_id, installation_id, domain_id, replicated)
                    VALUES (\(bind: appId), \(bind: installationId), \(bind: domain.id), \(bind: domain.replicated ? 1 : 0))
                    """).run()
            }
            // Enumerators of domains that are gone end with them.
            let kept = registration.domains.map(\.id.sqlLiteral).joined(separator: ", ")
            let stale = kept.isEmpty ? "" : " AND domain_id NOT IN (\(kept))"
            try await db.raw("DELETE FROM enumerators WHERE \(unsafeRaw: key)\(unsafeRaw: stale)").run()
        }
    }

    func deleteFileProvider(appId: String, installationId: String, now: Date, revision: Int64?) async throws -> Bool {
        let claim = revision.map { RevisionClaim(resource: "file-provider", revision: $0) }
        let existed = Mutex(false)
        try await writeRegistration(appId: appId, installationId: installationId, now: now, claim: claim) { db, key in
            let found = try await db.raw("SELECT push_token FROM file_provider_tokens WHERE \(unsafeRaw: key)").first() != nil
            for table in ["file_provider_tokens", "file_provider_domains", "enumerators"] {
                try await db.raw("DELETE FROM \(unsafeRaw: table) WHERE \(unsafeRaw: key)").run()
            }
            existed.withLock { $0 = found }
        }
        return existed.withLock { $0 }
    }

    func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date, maxLive: Int?, revision: Int64?) async throws {
        let claim = revision.map { RevisionClaim.enumerator(domain: enumerator.domain, container: enumerator.container, revision: $0) }
        try await writeRegistration(appId: appId, installationId: installationId, now: now, claim: claim) { db, key in
            guard try await db.raw("""
                SELECT domain_id FROM file_provider_domains WHERE \(unsafeRaw: key) AND domain_id = \(bind: enumerator.domain)
                """).first() != nil
            else {
                throw StoreError(.notFound, "domain \(enumerator.domain) is not registered for this installation; PUT .../file-provider first")
            }
            if let maxLive {
                let live = "\(key) AND expires_at > \(now.milliseconds)"
                let renewal = try await db.raw("""
                    SELECT expires_at FROM enumerators WHERE \(unsafeRaw: live)
                        AND domain_id = \(bind: enumerator.domain) AND container_id = \(bind: enumerator.container)
                    """).first() != nil
                let count = try await db.raw("SELECT COUNT(*) AS n FROM enumerators WHERE \(unsafeRaw: live)").first()?
                    .decode(column: "n", as: Int.self) ?? 0
                try Quotas.checkEnumerator(isRenewal: renewal, live: count, maximum: maxLive)
            }
            try await db.raw("""
                INSERT INTO enumerators (app_id, installation_id, domain_id, container_id, expires_at)
                VALUES (\(bind: appId), \(bind: installationId), \(bind: enumerator.domain), \(bind: enumerator.container),
                    \(bind: enumerator.expiresAt.milliseconds))
                ON CONFLICT (app_id, installation_id, domain_id, container_id) DO UPDATE SET expires_at = excluded.expires_at
                """).run()
        }
    }

    func deleteEnumerator(
        appId: String, installationId: String, domain: String, container: String, now: Date, revision: Int64?
    ) async throws -> Bool {
        try await transaction { db in
            let key = "app_id = \(appId.sqlLiteral) AND installation_id = \(installationId.sqlLiteral)"
            let claim = revision.map { RevisionClaim.enumerator(domain: domain, container: container, revision: $0) }
            if let claim { try await Self.claimRevision(db, appId: appId, installationId: installationId, claim) }
            let match = "\(key) AND domain_id = \(domain.sqlLiteral) AND container_id = \(container.sqlLiteral)"
            let existed = try await db.raw("SELECT expires_at FROM enumerators WHERE \(unsafeRaw: match)").first() != nil
            try await db.raw("DELETE FROM enumerators WHERE \(unsafeRaw: match)").run()
            try await db.raw("UPDATE installations SET last_seen_at = \(bind: now.milliseconds) WHERE \(unsafeRaw: key)").run()
            return existed
        }
    }

    func deleteExpiredEnumerators(now: Date) async throws -> Int {
        try await transaction { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM enumerators WHERE expires_at <= \(bind: now.milliseconds)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            try await db.raw("DELETE FROM enumerators WHERE expires_at <= \(bind: now.milliseconds)").run()
            return count
        }
    }

    func putInstallation(appId: String, _ installation: Installation, now: Date, maxPerUser: Int?, revision: Int64?) async throws {
        guard maxPerUser != nil || revision != nil else { return try await putInstallation(appId: appId, installation, now: now) }
        let write = InstallationWrite(appId: appId, installation: installation, now: now)
        let claim = revision.map { RevisionClaim(resource: "installation", revision: $0) }
        // Through the registration group: each write runs alone in the group's transaction, so the count
        // below sees the writes committed before it and concurrent requests cannot pass the limit together.
        try await submitRegistration { db in
            if let maxPerUser, let userId = installation.userId,
                try await db.raw("""
                    SELECT app_id FROM installations WHERE app_id = \(bind: appId) AND installation_id = \(bind: installation.id)
                    """).first() == nil
            {
                let count = try await db.raw("""
                    SELECT COUNT(*) AS n FROM installations WHERE app_id = \(bind: appId) AND user_id = \(bind: userId)
                    """).first()?.decode(column: "n", as: Int.self) ?? 0
                try Quotas.checkInstallation(isNew: true, existing: count, maximum: maxPerUser)
            }
            // After the quota's refusal, which must leave the group's transaction unchanged.
            if let claim { try await Self.claimRevision(db, appId: appId, installationId: installation.id, claim) }
            try await Self.putInstallations(db, appId: appId, [write])
        }
    }

    /// Runs a registration write for an existing installation and marks it seen.
    /// A `claim` older than the stored revision refuses the write before it changes anything.
    func writeRegistration(
        appId: String, installationId: String, now: Date, claim: RevisionClaim? = nil,
        _ body: @escaping @Sendable (any SQLDatabase, String) async throws -> Void
    ) async throws {
        let write: RegistrationWrite = { db in
            let key = "app_id = \(appId.sqlLiteral) AND installation_id = \(installationId.sqlLiteral)"
            guard try await db.raw("SELECT app_id FROM installations WHERE \(unsafeRaw: key)").first() != nil else {
                throw StoreError(.notFound, "installation \(installationId) is not registered; PUT it first")
            }
            if let claim { try await Self.claimRevision(db, appId: appId, installationId: installationId, claim) }
            try await body(db, key)
            try await db.raw("UPDATE installations SET last_seen_at = \(bind: now.milliseconds) WHERE \(unsafeRaw: key)").run()
        }
        try await submitRegistration(write)
    }

    /// Commits a registration write with the others of its group; one refused with a `StoreError` fails alone.
    func submitRegistration(_ write: @escaping RegistrationWrite) async throws {
        try await registrationWrites.submit(write) { writes in
            try await self.transaction { db in
                var failures: [Int: any Error] = [:]
                // A write refused as not found has changed nothing yet; the others go on.
                for (index, write) in writes.enumerated() {
                    do { try await write(db) } catch let error as StoreError { failures[index] = error }
                }
                return failures
            }
        }
    }

    private static func widgets(_ db: any SQLDatabase, key: String) async throws -> WidgetRegistration? {
        guard let token = try await db.raw("SELECT push_token FROM widget_tokens WHERE \(unsafeRaw: key)").first() else { return nil }
        let widgets = try await db.raw("SELECT * FROM widgets WHERE \(unsafeRaw: key) ORDER BY position").all().map { row in
            Widget(
                kind: try row.decode(column: "kind", as: String.self), family: try row.decode(column: "family", as: String.self),
                configuration: try JSONValue(json: try row.decode(column: "configuration", as: String.self))
            )
        }
        return WidgetRegistration(pushToken: try token.decode(column: "push_token", as: String.self), widgets: widgets)
    }

    private static func fileProvider(_ db: any SQLDatabase, key: String) async throws -> FileProviderRegistration? {
        guard let token = try await db.raw("SELECT push_token FROM file_provider_tokens WHERE \(unsafeRaw: key)").first() else {
            return nil
        }
        let domains = try await db.raw("SELECT * FROM file_provider_domains WHERE \(unsafeRaw: key) ORDER BY domain_id").all().map { row in
            FileProviderDomain(id: try row.decode(column: "domain_id", as: String.self), replicated: try row.decode(column: "replicated", as: Int.self) != 0)
        }
        return FileProviderRegistration(pushToken: try token.decode(column: "push_token", as: String.self), domains: domains)
    }
}

extension String {
    /// A SQL string literal (quotes doubled), for keys reused across statements in one transaction.
    var sqlLiteral: String { "'" + replacingOccurrences(of: "'", with: "''") + "'" }
}

extension JSONValue {
    /// The strings of a JSON array.
    var strings: [String] {
        guard case .array(let values) = self else { return [] }
        return values.compactMap { if case .string(let value) = $0 { value } else { nil } }
    }
}
