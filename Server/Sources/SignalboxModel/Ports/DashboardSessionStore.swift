import Foundation

/// The dashboard's signed-in sessions, kept in the database so that every instance behind a load balancer knows
/// them, a sign-out ends a session everywhere, and a restart signs nobody out. The store sees only a hash of each
/// session's secret (the cookie value), never the secret itself.
public protocol DashboardSessionStore: Sendable {
    /// Stores `session`; first removes the expired sessions of everyone and, when `owner` already holds
    /// `keepPerOwner` live sessions, its oldest ones, so one key signing in again and again cannot grow the table.
    func startDashboardSession(_ session: DashboardSessionRecord, keepPerOwner: Int, now: Date) async throws
    /// The live session whose secret hashes to `secretHash`, or nil (unknown, ended or expired).
    func dashboardSession(secretHash: String, now: Date) async throws -> DashboardSessionRecord?
    /// Ends the session (sign-out, or a rotated server key), on every instance.
    func endDashboardSession(secretHash: String) async throws
}

/// A dashboard session as stored.
public struct DashboardSessionRecord: Sendable, Equatable {
    /// Who signed in: the admin key, or an app's server key.
    public enum Owner: Sendable, Equatable {
        case admin
        /// The app's server key as it was at sign-in (`serverKeyHash`): the session ends when the key is rotated.
        case app(id: String, serverKeyHash: String)
    }

    /// A hash of the cookie's secret (`Secret.hash`): the table never holds a usable cookie.
    public var secretHash: String
    public var owner: Owner
    public var createdAt: Date
    public var expiresAt: Date

    public init(secretHash: String, owner: Owner, createdAt: Date, expiresAt: Date) {
        self.secretHash = secretHash
        self.owner = owner
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
