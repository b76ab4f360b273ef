import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// The two registrations every device repeats (`PUT installation`, `PUT controls`), written in groups: a few
/// statements for a whole group of concurrent requests instead of a few per request (see `GroupCommit`).
extension SQLRegistry {
    func putInstallation(appId: String, _ installation: Installation, now: Date) async throws {
        try await installationWrites.submit(InstallationWrite(appId: appId, installation: installation, now: now)) { writes in
            try await self.transaction { db in
                for (appId, writes) in Dictionary(grouping: writes, by: \.appId) { try await Self.putInstallations(db, appId: appId, writes) }
                return [:]
            }
        }
    }

    func putControls(appId: String, installationId: String, _ controls: [Control], now: Date) async throws {
        try await controlWrites.submit(ControlsWrite(appId: appId, installationId: installationId, controls: controls, now: now)) { writes in
            try await self.transaction { db in
                var failures: [Int: any Error] = [:]
                let indexed = writes.enumerated().map { (index: $0.offset, write: $0.element) }
                for (appId, writes) in Dictionary(grouping: indexed, by: \.write.appId) {
                    for missing in try await Self.putControls(db, appId: appId, writes.map(\.write)) {
                        for (index, write) in writes where write.installationId == missing {
                            failures[index] = StoreError(.notFound, "installation \(missing) is not registered; PUT it first")
                        }
                    }
                }
                return failures
            }
        }
    }

    /// Upserts one app's installations; the last write to an id wins.
    static func putInstallations(_ db: any SQLDatabase, appId: String, _ writes: [InstallationWrite]) async throws {
        for chunk in lastWriteWins(writes, id: \.installation.id).chunked(100) {
            let ids = chunk.map(\.installation.id)
            var stored: [String: String] = [:]  // id → channels as stored
            for row in try await db.raw("""
                SELECT installation_id, channels FROM installations WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: ids))
                """).all() {
                stored[try row.decode(column: "installation_id", as: String.self)] = try row.decode(column: "channels", as: String.self)
            }
            let rows = chunk.map { write -> SQLQueryString in
                let installation = write.installation
                return """
                    (\(bind: appId), \(bind: installation.id), \(bind: installation.userId), \(bind: write.channels),
                    \(bind: installation.environment.rawValue), \(bind: write.now.milliseconds), \(bind: write.now.milliseconds))
                    """
            }
            try await db.raw("""
                INSERT INTO installations (app_id, installation_id, user_id, channels, environment, created_at, last_seen_at)
                VALUES \(rows.joined(separator: ", "))
                ON CONFLICT (app_id, installation_id) DO UPDATE SET user_id = excluded.user_id,
                    channels = excluded.channels, environment = excluded.environment, last_seen_at = excluded.last_seen_at
                """).run()
            let changed = chunk.filter { stored[$0.installation.id] != $0.channels }
            let replaced = changed.map(\.installation.id).filter { stored[$0] != nil }
            if !replaced.isEmpty {
                try await db.raw("DELETE FROM installation_channels WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: replaced))").run()
            }
            let channelRows = changed.flatMap { write in
                write.installation.channels.map { channel -> SQLQueryString in "(\(bind: appId), \(bind: channel), \(bind: write.installation.id))" }
            }
            for rows in channelRows.chunked(300) {
                try await db.raw("INSERT INTO installation_channels (app_id, channel, installation_id) VALUES \(rows.joined(separator: ", "))").run()
            }
        }
    }

    /// Replaces one app's controls per installation (the last write to an installation wins); an unchanged
    /// set only renews its tokens' `token_seen_at`. - Returns: the installations that do not exist.
    static func putControls(_ db: any SQLDatabase, appId: String, _ writes: [ControlsWrite]) async throws -> Set<String> {
        var missing: Set<String> = []
        for chunk in lastWriteWins(writes, id: \.installationId).chunked(100) {
            let ids = chunk.map(\.installationId)
            let existing = Set(try await db.raw("""
                SELECT installation_id FROM installations WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: ids))
                """).all().map { try $0.decode(column: "installation_id", as: String.self) })
            missing.formUnion(ids.filter { !existing.contains($0) })
            let found = chunk.filter { existing.contains($0.installationId) }
            guard let now = found.map(\.now).max()?.milliseconds else { continue }
            var current: [String: [Control]] = [:]
            for row in try await db.raw("""
                SELECT installation_id, kind, configuration, push_token FROM controls
                WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: found.map(\.installationId))) ORDER BY installation_id, position
                """).all() {
                current[try row.decode(column: "installation_id", as: String.self), default: []].append(Control(
                    kind: try row.decode(column: "kind", as: String.self),
                    configuration: try JSONValue(json: try row.decode(column: "configuration", as: String.self)),
                    pushToken: try row.decode(column: "push_token", as: String.self)
                ))
            }
            let (unchanged, changed) = found.partitioned { (current[$0.installationId] ?? []) == $0.controls }
            if !unchanged.isEmpty {
                try await db.raw("""
                    UPDATE controls SET token_seen_at = \(bind: now)
                    WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: unchanged.map(\.installationId)))
                    """).run()
            }
            if !changed.isEmpty {
                try await db.raw("""
                    DELETE FROM controls WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: changed.map(\.installationId)))
                    """).run()
            }
            let rows = changed.flatMap { write in
                write.controls.enumerated().map { position, control -> SQLQueryString in
                    """
                    (\(bind: appId), \(bind: write.installationId), \(bind: position), \(bind: control.kind),
                        \(bind: control.configuration.canonicalJSON), \(bind: control.pushToken), \(bind: now))
                    """
                }
            }
            for rows in rows.chunked(100) {
                try await db.raw("""
                    INSERT INTO controls (app_id, installation_id, position, kind, configuration, push_token, token_seen_at)
                    VALUES \(rows.joined(separator: ", "))
                    """).run()
            }
            try await moveControlTokens(db, appId: appId, changed.map { ($0.installationId, $0.controls.map(\.pushToken)) }, now: Date(milliseconds: now))
            try await db.raw("""
                UPDATE installations SET last_seen_at = \(bind: now) WHERE app_id = \(bind: appId) AND installation_id IN (\(binds: found.map(\.installationId)))
                """).run()
        }
        return missing
    }

    /// The writes in order of first appearance, each id carrying its last write.
    private static func lastWriteWins<Write>(_ writes: [Write], id: (Write) -> String) -> [Write] {
        var order: [String] = []
        var latest: [String: Write] = [:]
        for write in writes {
            if latest.updateValue(write, forKey: id(write)) == nil { order.append(id(write)) }
        }
        return order.map { latest[$0]! }
    }
}

/// One `PUT installation` waiting for its group commit.
struct InstallationWrite: Sendable {
    let appId: String
    let installation: Installation
    let now: Date

    /// The channels as stored: canonical JSON.
    var channels: String { JSONValue.array(installation.channels.map(JSONValue.string)).canonicalJSON }
}

/// One `PUT controls` waiting for its group commit.
struct ControlsWrite: Sendable {
    let appId: String
    let installationId: String
    let controls: [Control]
    let now: Date
}

/// One registration write (widgets, File Provider, enumerator) waiting for its group commit.
typealias RegistrationWrite = @Sendable (any SQLDatabase) async throws -> Void

extension Array {
    /// The elements that satisfy `belongs`, then the others, each in order.
    func partitioned(by belongs: (Element) -> Bool) -> (matching: [Element], others: [Element]) {
        var matching: [Element] = []
        var others: [Element] = []
        for element in self { if belongs(element) { matching.append(element) } else { others.append(element) } }
        return (matching, others)
    }
}
