import Foundation
import SignalboxModel

/// Where an accepted event enters the engine: stored before the API answers 202 (so a crash loses nothing
/// accepted), then the fan-out is woken. The event's way goes on in one direction from here: `FanOutService` plans
/// it into the outbox, `Dispatcher` sends the outbox through the transport.
public struct EventIntake: Sendable {
    let delivery: any DeliveryStore
    let idempotency: any IdempotencyStore
    let signals: DeliverySignals

    public init(delivery: any DeliveryStore, idempotency: any IdempotencyStore, signals: DeliverySignals) {
        self.delivery = delivery
        self.idempotency = idempotency
        self.signals = signals
    }

    /// Stores the event and wakes the fan-out.
    public func accept(_ event: EventRecord) async throws {
        try await delivery.createEvent(event)
        signals.eventAccepted(event.queued)
    }

    /// As `accept`, under an `Idempotency-Key`: a key already used stores nothing and says why (`IdempotencyClaim`).
    public func accept(_ event: EventRecord, idempotency request: IdempotentRequest, answer: StoredAnswer) async throws -> IdempotencyClaim {
        let claim = try await idempotency.createEvent(event, idempotency: request, answer: answer)
        if case .claimed = claim { signals.eventAccepted(event.queued) }
        return claim
    }
}
