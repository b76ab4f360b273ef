import SignalboxModel
import Synchronization

/// Shared by the routes and the delivery services: who to wake, which apps are paused, what is in flight.
public final class DeliverySignals: Sendable {
    /// Rung when an event is accepted (`eventAccepted()`).
    let fanOut = Wakeup()
    /// Rung with `fanOut` for an event accepted here, for its first page (`FanOutService.firstPages`).
    let newcomers = Wakeup()
    /// Rung when pushes are stored or a send finishes.
    let outbox = Wakeup()
    /// Rung when the dispatcher has room for a fan-out page of pushes.
    let room = Wakeup()
    public let pauses = AppPauses()
    /// Pushes being sent (or handed off to be sent), and results waiting to be recorded.
    let results = ResultBuffer()
    /// Pushes the fan-out stored already claimed, waiting for the dispatcher to send them.
    let handedOff = HandedOffPushes()
    /// How many pushes may be in flight, handed off included (`Dispatcher.handOffLimit`), published by the
    /// dispatcher once it has released the claims of the previous process (before that, or without a dispatcher, 0:
    /// nothing is handed off).
    let handOffLimit = Atomic<Int>(0)
    /// Set when pushes may have become due to claim (stored pending, or back to pending): the dispatcher claims then,
    /// or when the earliest pending push falls due, not each time sends finish.
    let pushesStored = Atomic<Bool>(true)

    /// Events this process is stepping: the first-page loop and the rounds may both pick a new event, and the one
    /// that comes second skips it instead of spending a transaction to learn it is busy.
    let stepping = Mutex<Set<String>>([])

    /// Events accepted so far: a lone app's fan-out waiting for room stops waiting when this changes, so a new
    /// event (perhaps another app's) is not held up behind that wait.
    let eventsAccepted = Atomic<Int>(0)

    /// Events this process accepted, for the first-page loop (at most 256 waiting: beyond, the rounds plan them).
    private let acceptedHere = Mutex<[QueuedEvent]>([])

    public init() {}

    /// Wakes the dispatcher for pushes stored pending (by this or another instance) or returned to pending.
    func pushesQueued() {
        pushesStored.store(true, ordering: .releasing)
        outbox.signal()
    }

    /// Wakes the fan-out for an event this (`event`) or another instance accepted.
    public func eventAccepted(_ event: QueuedEvent? = nil) {
        eventsAccepted.add(1, ordering: .releasing)
        fanOut.signal()
        if let event {
            acceptedHere.withLock { if $0.count < 256 { $0.append(event) } }
            newcomers.signal()
        }
        room.signal()
    }

    /// The events accepted here since the last call (`eventAccepted`).
    func takeAcceptedHere() -> [QueuedEvent] {
        acceptedHere.withLock { accepted in
            defer { accepted = [] }
            return accepted
        }
    }
}
