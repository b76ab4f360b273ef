import Foundation
import Synchronization

/// Apps whose sending is paused after a credentials problem, shown by `/readyz`.
public final class AppPauses: Sendable {
    public struct Pause: Sendable, Hashable {
        public let reason: String
        public let until: Date
    }

    private let pauses = Mutex<[String: Pause]>([:])
    /// Apps paused since their last accepted push (an `app.resumed` is owed when one is accepted).
    private let unresumed = Mutex<Set<String>>([])

    /// - Returns: whether this began a pause (the app was not paused at `now`), so it is reported once.
    @discardableResult
    public func pause(appId: String, reason: String, until: Date, now: Date = Date()) -> Bool {
        unresumed.withLock { _ = $0.insert(appId) }
        return pauses.withLock { pauses in
            let began = (pauses[appId]?.until ?? .distantPast) <= now
            pauses[appId] = Pause(reason: reason, until: until)
            return began
        }
    }

    /// Notes that APNs accepted a push of the app. - Returns: whether the app had been paused (it is resumed now).
    public func accepted(appId: String) -> Bool {
        unresumed.withLock { $0.isEmpty ? false : $0.remove(appId) != nil }
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
