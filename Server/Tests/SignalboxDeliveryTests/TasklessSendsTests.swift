@testable import SignalboxDelivery
import Testing

/// The count of pushes sent without a task, which the dispatcher's shutdown waits on.
@Suite struct TasklessSendsTests {
    @Test func settlingWaitsForEveryPushAndHandsOverWhatNeedsATask() async {
        let sends = TasklessSends()
        sends.started(3)
        sends.ended()
        sends.needsTask {}
        // One push still runs without a task: the unfinished one is handed over, and nothing says "settled" yet.
        #expect(await sends.settle().count == 1)
        async let settled = sends.settle()
        sends.ended()
        #expect(await settled.isEmpty, "the last push ended")
        #expect(sends.takeUnfinished().isEmpty)
    }

    @Test func workNeedingATaskWakesASettlingWaiter() async {
        let sends = TasklessSends()
        sends.started(1)
        async let settled = sends.settle()
        sends.needsTask {}
        #expect(await settled.count == 1)
        #expect(await sends.settle().isEmpty)
    }
}
