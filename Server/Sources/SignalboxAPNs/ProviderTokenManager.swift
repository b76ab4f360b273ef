import Foundation
import Synchronization

/// Keeps one provider token per (team, key), shared by every connection (`apns.md` §3.3–3.4).
///
/// Reuses a token until it is `refreshAge` old (50 minutes), never mints within `minimumAge` (20 minutes)
/// of the last mint, mints on `ExpiredProviderToken` (the caller retries once), and stops minting after
/// `TooManyProviderTokenUpdates` until the 20-minute floor has passed.
public final class ProviderTokenManager: Sendable {
    public let key: SigningKey
    /// Age at which a token is replaced before use.
    public let refreshAge: Duration
    /// Minimum age before any replacement.
    public let minimumAge: Duration
    private let now: @Sendable () -> Date
    private let state = Mutex<ProviderToken?>(nil)

    /// - Parameters:
    ///   - key: the signing key.
    ///   - refreshAge: replace tokens this old (default 50 minutes).
    ///   - minimumAge: never replace a younger token (default 20 minutes).
    ///   - now: the wall clock, used for `iat` and ages.
    public init(
        key: SigningKey,
        refreshAge: Duration = .seconds(50 * 60),
        minimumAge: Duration = .seconds(20 * 60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.refreshAge = refreshAge
        self.minimumAge = minimumAge
        self.now = now
    }

    /// The token to send now, minting one when none exists or the current one is `refreshAge` old.
    public func current() -> ProviderToken {
        let now = self.now()
        return state.withLock { token in
            if let existing = token, Self.age(of: existing, at: now) < refreshAge { return existing }
            let minted = key.providerToken(issuedAt: now)
            token = minted
            return minted
        }
    }

    /// The token in use, if one was minted or adopted; never mints.
    public var token: ProviderToken? { state.withLock { $0 } }

    /// Uses `shared` (the token other instances use for this key) instead of the current one when there is none
    /// or it is newer. A token from elsewhere must be signed by this manager's key.
    /// - Returns: whether the token changed.
    @discardableResult
    public func adopt(_ shared: ProviderToken) -> Bool {
        state.withLock { token in
            if let existing = token, existing.issuedAt >= shared.issuedAt { return false }
            token = shared
            return true
        }
    }

    /// APNs answered `ExpiredProviderToken` for `rejected`: returns a newer token to retry with once,
    /// or `nil` when replacing it now would break the 20-minute rule (a clock problem to report).
    public func expired(_ rejected: ProviderToken) -> ProviderToken? {
        let now = self.now()
        return state.withLock { token in
            if let existing = token, existing != rejected { return existing }
            if let existing = token, Self.age(of: existing, at: now) < minimumAge { return nil }
            let minted = key.providerToken(issuedAt: now)
            token = minted
            return minted
        }
    }

    /// APNs answered `TooManyProviderTokenUpdates`: keep the current token; no mint happens here, and
    /// `current()` will not mint before the token reaches `refreshAge`.
    /// - Returns: how long until the current token may be replaced.
    public func tooManyUpdates() -> Duration {
        let now = self.now()
        return state.withLock { token in
            guard let existing = token else { return .zero }
            let wait = minimumAge - Self.age(of: existing, at: now)
            return wait > .zero ? wait : .zero
        }
    }

    private static func age(of token: ProviderToken, at now: Date) -> Duration {
        .milliseconds(Int64(now.timeIntervalSince(token.issuedAt) * 1000))
    }
}
