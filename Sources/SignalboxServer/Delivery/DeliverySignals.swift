/// Shared by the routes and the delivery services: who to wake, which apps are paused.
public final class DeliverySignals: Sendable {
    /// Rung when an event is accepted.
    let fanOut = Wakeup()
    /// Rung when pushes are stored or a send finishes.
    let outbox = Wakeup()
    let pauses = AppPauses()

    public init() {}
}
