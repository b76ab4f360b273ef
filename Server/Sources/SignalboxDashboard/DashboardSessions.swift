import Crypto
import Foundation
import SignalboxServer
import SignalboxModel

/// Signed-in dashboard sessions, kept by a `DashboardSessionStore` (the database): a session started on one
/// instance works on every other, a sign-out ends it everywhere, and a restart keeps it. The cookie holds a random
/// secret; the store holds its hash, who signed in and when the session ends. Every form carries a CSRF token
/// derived from the secret, so it needs no storing and cannot be computed from what the database holds.
struct DashboardSessions: Sendable {
    struct Session: Sendable {
        /// Sent in every form and checked on every POST.
        let csrfToken: String
        let principal: DashboardPrincipal
        let expires: Date
    }

    /// How long a session lasts after sign-in.
    static let lifetime: TimeInterval = 8 * 3600
    /// Sessions kept at most per principal (the admin, each app's key); that principal's oldest go first, so
    /// signing in again and again with one app's key can never sign the admin or another app out.
    static let capacityPerPrincipal = 100

    let store: any DashboardSessionStore

    /// Starts a session. - Returns: its secret (the cookie value) and the session.
    func start(_ principal: DashboardPrincipal, now: Date) async throws -> (id: String, session: Session) {
        let id = Secret.generate(prefix: "")
        let expires = now.addingTimeInterval(Self.lifetime)
        let record = DashboardSessionRecord(secretHash: Secret.hash(id), owner: principal.owner, createdAt: now, expiresAt: expires)
        try await store.startDashboardSession(record, keepPerOwner: Self.capacityPerPrincipal, now: now)
        return (id, Session(csrfToken: Self.csrfToken(id), principal: principal, expires: expires))
    }

    /// The live session with this secret, if any.
    func session(id: String, now: Date) async throws -> Session? {
        guard let record = try await store.dashboardSession(secretHash: Secret.hash(id), now: now) else { return nil }
        return Session(csrfToken: Self.csrfToken(id), principal: DashboardPrincipal(record.owner), expires: record.expiresAt)
    }

    func end(id: String) async throws {
        try await store.endDashboardSession(secretHash: Secret.hash(id))
    }

    /// The form token of the session with secret `id`: a hash under another label than the stored one, so the
    /// stored hash does not give it away.
    private static func csrfToken(_ id: String) -> String {
        Data(SHA256.hash(data: Data(("signalbox dashboard csrf\n" + id).utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// Who signed in to the dashboard.
enum DashboardPrincipal: Sendable, Equatable {
    /// The admin key: every app.
    case admin
    /// An app's server key: that app only, while the key is current (`keyHash` is checked on every request).
    case app(id: String, keyHash: String)

    init(_ owner: DashboardSessionRecord.Owner) {
        switch owner {
        case .admin: self = .admin
        case .app(let id, let serverKeyHash): self = .app(id: id, keyHash: serverKeyHash)
        }
    }

    var owner: DashboardSessionRecord.Owner {
        switch self {
        case .admin: .admin
        case .app(let id, let keyHash): .app(id: id, serverKeyHash: keyHash)
        }
    }

    func mayView(appId: String) -> Bool {
        switch self {
        case .admin: true
        case .app(let id, _): id == appId
        }
    }
}
