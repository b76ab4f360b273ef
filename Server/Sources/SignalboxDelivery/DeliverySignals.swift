import Synchronization

/// Shared by the routes and the delivery services: who to wake, which apps are paused, what is in flight.
public final class DeliverySignals: Sendable {
    /// Rung when an event is accepted.
    public let fanOut = Wakeup()
    /// Rung when pushes are stored or a send finishes.
    let outbox = Wakeup()
    /// Rung when the dispatcher has room for a fan-out page of pushes.
    let room = Wakeup()
    public let pauses = AppPauses()
    /// Pushes being sent (or handed off to be sent), and results waiting to be recorded.
    let results = ResultBuffer()
    /// Pushes the fan-out stored already claimed, waiting for the dispatcher to send them.
    let handedOff = HandedOffPushes()
    /// How many pushes may be in flight, published by the dispatcher once it has released the claims of the
    /// previous process (before that, or without a dispatcher, 0: nothing is handed off).
    let handOffLimit = Atomic<Int>(0)

    public init() {}
}
