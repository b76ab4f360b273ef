import Foundation
import Synchronization

/// Apps whose sending is paused after a credentials problem, shown by `/readyz`.
public final class AppPauses: Sendable {
    public struct Pause: Sendable, Hashable {
        public let reason: String
        public let until: Date
    }

    private let pauses = Mutex<[String: Pause]>([:])

    public func pause(appId: String, reason: String, until: Date) {
        pauses.withLock { $0[appId] = Pause(reason: reason, until: until) }
    }

    /// Ends the app's pause (its credentials were replaced).
    public func resume(appId: String) {
        _ = pauses.withLock { $0.removeValue(forKey: appId) }
    }

    /// Apps paused at `now`; ended pauses are dropped.
    public func active(at now: Date) -> [String: Pause] {
        pauses.withLock { pauses in
            pauses = pauses.filter { $0.value.until > now }
            return pauses
        }
    }
}
