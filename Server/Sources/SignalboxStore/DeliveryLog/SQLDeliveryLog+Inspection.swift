import Foundation
import SQLKit
import SignalboxModel

/// Read queries for the operator's views (token inspector, event list, app overview).
extension SQLDeliveryLog {
    func registrations(appId: String, token: String) async throws -> [TokenRegistration] {
        try await transaction { db in
            var found: [TokenRegistration] = []
            let holders: SQLQueryString = "t.app_id = \(bind: appId) AND t.push_token = \(bind: token)"
            let owner: SQLQueryString = "JOIN installations i ON i.app_id = t.app_id AND i.installation_id = t.installation_id"
            for row in try await db.raw("SELECT t.installation_id, i.user_id, t.token_seen_at FROM widget_tokens t \(owner) WHERE \(holders)").all() {
                let installation = try row.decode(column: "installation_id", as: String.self)
                let widgets = try await db.raw("""
                    SELECT kind, family, configuration FROM widgets WHERE app_id = \(bind: appId) AND installation_id = \(bind: installation)
                    ORDER BY position
                    """).all()
                found.append(TokenRegistration(
                    installationId: installation, userId: try row.decode(column: "user_id", as: String?.self), kind: .widgets,
                    targets: try widgets.map { "\(try $0.decode(column: "kind", as: String.self)) (\(try $0.decode(column: "family", as: String.self)))" },
                    configurations: try widgets.map { try $0.decode(column: "configuration", as: String.self) },
                    tokenSeenAt: Date(milliseconds: try row.decode(column: "token_seen_at", as: Int64.self))
                ))
            }
            // Sorted here: an `ORDER BY` that the primary key serves makes SQLite scan the app's controls in that order
            // instead of seeking the token in `controls_token`.
            let controls = try await db.raw("""
                SELECT t.installation_id, t.position, i.user_id, t.token_seen_at, t.kind, t.configuration FROM controls t \(owner) WHERE \(holders)
                """).all().map { row in (try row.decode(column: "installation_id", as: String.self), try row.decode(column: "position", as: Int.self), row) }
            for (_, _, row) in controls.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
                found.append(TokenRegistration(
                    installationId: try row.decode(column: "installation_id", as: String.self),
                    userId: try row.decode(column: "user_id", as: String?.self), kind: .controls,
                    targets: [try row.decode(column: "kind", as: String.self)],
                    configurations: [try row.decode(column: "configuration", as: String.self)],
                    tokenSeenAt: Date(milliseconds: try row.decode(column: "token_seen_at", as: Int64.self))
                ))
            }
            for row in try await db.raw("SELECT t.installation_id, i.user_id, t.token_seen_at FROM file_provider_tokens t \(owner) WHERE \(holders)").all() {
                let installation = try row.decode(column: "installation_id", as: String.self)
                let domains = try await db.raw("""
                    SELECT domain_id, replicated FROM file_provider_domains WHERE app_id = \(bind: appId) AND installation_id = \(bind: installation)
                    ORDER BY domain_id
                    """).all()
                found.append(TokenRegistration(
                    installationId: installation, userId: try row.decode(column: "user_id", as: String?.self), kind: .fileprovider,
                    targets: try domains.map {
                        let id = try $0.decode(column: "domain_id", as: String.self)
                        return try $0.decode(column: "replicated", as: Int.self) != 0 ? "\(id) (replicated)" : id
                    },
                    configurations: [],
                    tokenSeenAt: Date(milliseconds: try row.decode(column: "token_seen_at", as: Int64.self))
                ))
            }
            return found
        }
    }

    func installationIds(appId: String, userId: String, limit: Int) async throws -> [String] {
        try await oneStatement { db in
            try await db.raw("""
                SELECT installation_id FROM installations WHERE app_id = \(bind: appId) AND user_id = \(bind: userId)
                ORDER BY installation_id LIMIT \(bind: limit)
                """).all().map { try $0.decode(column: "installation_id", as: String.self) }
        }
    }

    func installationIds(appId: String, after: String?, limit: Int) async throws -> [String] {
        try await oneStatement { db in
            try await db.raw("""
                SELECT installation_id FROM installations WHERE app_id = \(bind: appId) AND installation_id > \(bind: after ?? "")
                ORDER BY installation_id LIMIT \(bind: limit)
                """).all().map { try $0.decode(column: "installation_id", as: String.self) }
        }
    }

    func events(appId: String, state: EventState?, limit: Int, after: String?) async throws -> [EventSummary] {
        try await oneStatement { db in
            var filter: SQLQueryString = "app_id = \(bind: appId)"
            switch state {
            case .done?: filter = "\(filter) AND \(SQLDelivery.eventIsDone)"
            case .delivering?: filter = "\(filter) AND state = \(stored: EventState.delivering) AND NOT (\(SQLDelivery.eventIsDone))"
            case let state?: filter = "\(filter) AND state = \(bind: state.rawValue)"
            case nil: break
            }
            if let after {
                guard let row = try await db.raw("SELECT created_at FROM events WHERE app_id = \(bind: appId) AND event_id = \(bind: after)").first() else {
                    throw StoreError(.notFound, "no event \(after)")
                }
                let created = try row.decode(column: "created_at", as: Int64.self)
                filter = "\(filter) AND (created_at < \(bind: created) OR (created_at = \(bind: created) AND event_id < \(bind: after)))"
            }
            return try await db.raw("SELECT * FROM events WHERE \(filter) ORDER BY created_at DESC, event_id DESC LIMIT \(bind: limit)")
                .all().map(Self.eventSummary)
        }
    }

    func event(appId: String, id: String) async throws -> EventSummary? {
        try await oneStatement { db in
            try await db.raw("SELECT * FROM events WHERE app_id = \(bind: appId) AND event_id = \(bind: id)").first().map(Self.eventSummary)
        }
    }

    func registrationCounts(appId: String) async throws -> RegistrationCounts {
        try await oneStatement { db in
            func count(_ table: String) -> SQLQueryString { "(SELECT COUNT(*) FROM \(ident: table) WHERE app_id = \(bind: appId)) AS \(ident: table)" }
            let row = try await db.raw("""
                SELECT \(count("installations")), \(count("widget_tokens")), \(count("controls")), \(count("file_provider_tokens"))
                """).first()
            guard let row else { return RegistrationCounts(installations: 0, byKind: [:]) }
            return RegistrationCounts(
                installations: try row.decode(column: "installations", as: Int.self),
                byKind: [
                    .widgets: try row.decode(column: "widget_tokens", as: Int.self), .controls: try row.decode(column: "controls", as: Int.self),
                    .fileprovider: try row.decode(column: "file_provider_tokens", as: Int.self),
                ]
            )
        }
    }

    func outboxDepth(appId: String) async throws -> Int {
        try await oneStatement { db in
            try await db.raw("""
                SELECT (SELECT COUNT(*) FROM outbox WHERE state IN (\(stored: [OutboxState.pending, .sending])) AND app_id = \(bind: appId))
                    + \(Handoff.remaining(appId: appId)) AS n
                """)
                .first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    private static func eventSummary(_ row: any SQLRow) throws -> EventSummary {
        let status = EventStatus(
            state: try row.decode(stored: "state", as: EventState.self),
            matched: try row.decode(column: "matched", as: Int.self), coalesced: try row.decode(column: "coalesced", as: Int.self),
            delivered: try row.decode(column: "delivered", as: Int.self), failed: try row.decode(column: "failed", as: Int.self),
            pruned: try row.decode(column: "pruned", as: Int.self), reason: try row.decode(column: "failure_reason", as: String?.self)
        )
        return EventSummary(
            id: try row.decode(column: "event_id", as: String.self),
            createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self)), status: status
        )
    }
}
