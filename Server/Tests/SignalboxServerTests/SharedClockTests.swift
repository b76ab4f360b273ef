import Foundation
import SignalboxDelivery
import Synchronization
import Testing

@Suite struct SharedClockTests {
    /// A local clock that advances by `step` seconds at every reading.
    final class SteppingClock: Sendable {
        let time: Mutex<Date>
        let steps: Mutex<[Double]>
        init(start: Date, steps: [Double]) {
            time = Mutex(start)
            self.steps = Mutex(steps)
        }
        func read() -> Date {
            let step = steps.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            return time.withLock { $0 += step; return $0 }
        }
    }

    @Test func keepsTheReadingWithTheShortestRoundTripTakenHalfwayThrough() async throws {
        let start = Date(timeIntervalSince1970: 1_000)
        // Readings: sent 1,000 / received 1,004 (round trip 4 s), then sent 1,005 / received 1,006 (1 s).
        let local = SteppingClock(start: start, steps: [0, 4, 1, 1])
        let shared = Mutex([Date(timeIntervalSince1970: 5_000), Date(timeIntervalSince1970: 5_005.5)])
        let clock = SharedClock(local: local.read)
        let roundTrip = try await clock.synchronize(samples: 2) { shared.withLock { $0.removeFirst() } }
        #expect(roundTrip == .seconds(1))
        // The shared clock read 5,005.5 halfway through 1,005…1,006: 4,000 s ahead of the local clock.
        #expect(clock.offsetSeconds == 4_000)
    }

    @Test func withoutASharedClockTheLocalOneIsUsed() async throws {
        let clock = SharedClock(local: { Date(timeIntervalSince1970: 42) })
        #expect(try await clock.synchronize { nil } == nil)
        #expect(clock.now() == Date(timeIntervalSince1970: 42))
    }
}
