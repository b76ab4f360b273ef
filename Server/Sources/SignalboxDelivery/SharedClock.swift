import Foundation
import Synchronization

/// The clock instances on one database agree on: the local clock corrected by its measured offset from the
/// database's (`DeliveryStore.sharedTime`). Leases, due times and provider-token issue times are compared
/// across instances, so an instance whose clock runs ahead must not take over claims that are still live.
public final class SharedClock: Sendable {
    private let local: @Sendable () -> Date
    /// Seconds to add to the local clock.
    private let offset = Mutex<Double>(0)

    public init(local: @escaping @Sendable () -> Date = { Date() }) {
        self.local = local
    }

    public func now() -> Date {
        local() + offset.withLock { $0 }
    }

    /// Seconds this instance's clock is behind the shared one (negative: ahead).
    public var offsetSeconds: Double { offset.withLock { $0 } }

    /// Measures the offset `samples` times and keeps the reading with the shortest round trip, taking the
    /// shared time as read halfway through it. Leaves the offset as it was when there is no shared clock.
    /// - Returns: the round trip of the kept reading, or nil when there is no shared clock.
    @discardableResult
    public func synchronize(samples: Int = 3, read: @Sendable () async throws -> Date?) async throws -> Duration? {
        var best: (roundTrip: Double, offset: Double)?
        for _ in 0..<max(1, samples) {
            let sent = local()
            guard let shared = try await read() else { return nil }
            let received = local()
            let roundTrip = received.timeIntervalSince(sent)
            let sample = shared.timeIntervalSince(sent + roundTrip / 2)
            if let kept = best, kept.roundTrip <= roundTrip { continue }
            best = (roundTrip, sample)
        }
        guard let best else { return nil }
        offset.withLock { $0 = best.offset }
        return .seconds(best.roundTrip)
    }
}
