import Foundation
import SignalboxModel

extension DeliveryStore {
    /// One step of an event's fan-out, in the engine's order: the store reads the next page of the audience, the
    /// planner decides its pushes (`FanOutPlanner`), the store writes them. Up to `handOff` pushes due now are
    /// stored already claimed and returned for the dispatcher (`FanOutPage.store`).
    /// `urgent` and `fullPage` (default: `batchSize`): `DeliveryStore.fanOutPage`.
    public func fanOutStep(
        eventId: String, batchSize: Int, fullPage: Int? = nil, now: Date, handOff: Int, urgent: Bool = false
    ) async throws -> FanOutStep {
        try await fanOutPage(eventId: eventId, batchSize: batchSize, fullPage: fullPage ?? batchSize, now: now, urgent: urgent) { page in
            try await page.store(FanOutPlanner.plan(page.event.request.target, candidates: page.candidates), handOff: handOff)
        }
    }
}
