import Foundation
import Synchronization

/// One `ProviderTokenManager` per signing key, shared by every app that uses it.
///
/// Apple's usual set-up is one `.p8` key for all of a team's apps. Connections are pooled per (environment,
/// team, key), so a manager per app would put two tokens on one connection, which APNs answers with
/// `429 TooManyProviderTokenUpdates` and leaves the connection unusable (`apns.md` §3.3–3.4).
public final class ProviderTokenManagers: Sendable {
    private struct Key: Hashable {
        var teamId: String
        var keyId: String
        /// Two keys claiming the same ids are kept apart: one of them is wrong, and APNs will say which.
        var fingerprint: String
    }

    private let managers = Mutex<[Key: ProviderTokenManager]>([:])
    private let now: @Sendable () -> Date

    /// - Parameter now: the wall clock every manager uses for `iat` and ages.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Every manager created so far.
    public var all: [ProviderTokenManager] { managers.withLock { Array($0.values) } }

    /// The manager of `key`, created on first use.
    public func manager(for key: SigningKey) -> ProviderTokenManager {
        let id = Key(teamId: key.teamId, keyId: key.keyId, fingerprint: key.fingerprint)
        return managers.withLock { managers in
            if let existing = managers[id] { return existing }
            let manager = ProviderTokenManager(key: key, now: now)
            managers[id] = manager
            return manager
        }
    }
}
