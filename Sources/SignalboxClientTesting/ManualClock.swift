import Foundation
import SignalboxClient
import Synchronization

/// A clock a test moves by hand; `sleep(until:)` jumps to the deadline, so back-off and leases take no real time.
public final class ManualClock: SignalboxClock {
    private let date: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { date = Mutex(start) }

    public var now: Date { date.withLock { $0 } }
    public func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public func sleep(until deadline: Date) async throws { date.withLock { $0 = max($0, deadline) } }
}
