import Foundation
import Synchronization

/// A device JWT from the app's backend, with its expiry (read from the token's `exp` when not given).
public struct DeviceCredential: Sendable, Hashable {
    public var token: String
    public var expiresAt: Date?
    /// The user the token is for (its `sub`), when it is a readable JWT.
    public var subject: String?

    public init(token: String, expiresAt: Date? = nil) {
        self.token = token
        let claims = Self.claims(ofJWT: token)
        self.expiresAt = expiresAt ?? (claims?["exp"] as? Double).map(Date.init(timeIntervalSince1970:))
        subject = claims?["sub"] as? String
    }

    /// The claims of a JWT, without checking it: the server checks; we only plan the refresh and see whose it is.
    static func claims(ofJWT token: String) -> [String: Any]? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}

/// Hands out the current device JWT, asking the app's backend (the `fetch` closure) for a new one shortly
/// before it expires or after the server refused it. The device secret never reaches the app.
public actor DeviceCredentials {
    public typealias Fetch = @Sendable () async throws -> DeviceCredential

    private let fetch: Fetch
    private let clock: any SignalboxClock
    private let refreshMargin: TimeInterval
    private var current: DeviceCredential?
    /// Bumped by `forgetToken()`: a token fetched in an earlier epoch is not used again.
    private let epoch = Mutex(0)
    private var currentEpoch = 0
    /// The last token of the user before `forgetToken()`, to delete that user's installation.
    private var previous: DeviceCredential?

    /// - Parameter refreshMargin: a token this close to its expiry is replaced before use.
    public init(clock: any SignalboxClock = SystemClock(), refreshMargin: TimeInterval = 120, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.clock = clock
        self.refreshMargin = refreshMargin
    }

    /// A token that is not about to expire, and is for `user` when given: another process may have switched users
    /// in the shared store, so a cached token whose `sub` names someone else is replaced.
    public func token(for user: String? = nil) async throws -> String {
        if let user, let subject = current?.subject, subject != user { forgetToken() }
        let now = epoch.withLock { $0 }
        if let current, currentEpoch == now, current.expiresAt.map({ $0.timeIntervalSince(clock.now) > refreshMargin }) ?? true {
            return current.token
        }
        retire(epoch: now)
        let fresh = try await fetch()
        current = fresh
        currentEpoch = now
        return fresh.token
    }

    /// The user changed or signed out: the next `token()` asks the backend again. Callable from any context.
    public nonisolated func forgetToken() { epoch.withLock { $0 += 1 } }

    /// The previous user's token (fetched before the last `forgetToken()`), while it is valid; only this process's.
    public func previousUserToken() -> String? {
        retire(epoch: epoch.withLock { $0 })
        guard let previous, previous.expiresAt.map({ $0 > clock.now }) ?? true else { return nil }
        return previous.token
    }

    /// A token of an earlier epoch becomes the previous user's.
    private func retire(epoch now: Int) {
        guard let current, currentEpoch != now else { return }
        previous = current
        self.current = nil
    }

    /// Forgets the token after a 401, so the next `token()` fetches a new one.
    public func invalidate(_ token: String) {
        if current?.token == token { current = nil }
    }
}
