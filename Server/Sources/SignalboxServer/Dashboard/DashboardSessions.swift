import Crypto
import Foundation
import Synchronization

/// Signed-in dashboard sessions, in memory: a restart signs everyone out. The cookie holds a random id; the
/// session holds who signed in and the token every form must carry (CSRF).
final class DashboardSessions: Sendable {
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

    private let sessions = Mutex<[String: Session]>([:])

    /// Starts a session. - Returns: its id (the cookie value) and the session.
    func start(_ principal: DashboardPrincipal, now: Date) -> (id: String, session: Session) {
        let id = Secret.generate(prefix: "")
        let session = Session(csrfToken: Secret.generate(prefix: ""), principal: principal, expires: now.addingTimeInterval(Self.lifetime))
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            let own = sessions.filter { $0.value.principal == principal }
            if own.count >= Self.capacityPerPrincipal, let oldest = own.min(by: { $0.value.expires < $1.value.expires }) {
                sessions[oldest.key] = nil
            }
            sessions[Self.key(id)] = session
        }
        return (id, session)
    }

    /// The live session with this id, if any.
    func session(id: String, now: Date) -> Session? {
        sessions.withLock { sessions in
            guard let session = sessions[Self.key(id)] else { return nil }
            guard session.expires > now else {
                sessions[Self.key(id)] = nil
                return nil
            }
            return session
        }
    }

    func end(id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    /// Sessions are found by a hash of the id, so the table never holds a usable cookie value.
    private static func key(_ id: String) -> String { Secret.hash(id) }
}

/// Who signed in to the dashboard.
enum DashboardPrincipal: Sendable, Equatable {
    /// The admin key: every app.
    case admin
    /// An app's server key: that app only, while the key is current (`keyHash` is checked on every request).
    case app(id: String, keyHash: String)

    func mayView(appId: String) -> Bool {
        switch self {
        case .admin: true
        case .app(let id, _): id == appId
        }
    }
}
