import Foundation
import Synchronization

/// A wall clock tests move by hand: code under test reads `now`, the test decides when time passes.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(seconds: Double) { current.withLock { $0 += seconds } }

    public func advance(minutes: Double) { advance(seconds: minutes * 60) }
}
