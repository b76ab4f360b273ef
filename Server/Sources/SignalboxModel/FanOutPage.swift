import Foundation

/// One page of an event's audience, as a store reads it for the engine: the registrations the event's target can
/// match. The engine plans them (`FanOutPlanner`) and hands the pushes back through `store`, which writes them in the
/// same transaction as the read, so a crash or a competing instance never sees half a page.
///
/// Valid only inside the `DeliveryStore.fanOutPage` call that made it, and `store` is called once: a page not stored
/// leaves the event's cursor where it was.
public struct FanOutPage: Sendable {
    public let event: EventRecord
    public let candidates: [FanOutCandidate]
    private let write: @Sendable (_ pushes: [PlannedPush], _ handOff: Int) async throws -> FanOutStep

    public init(
        event: EventRecord, candidates: [FanOutCandidate],
        store: @escaping @Sendable (_ pushes: [PlannedPush], _ handOff: Int) async throws -> FanOutStep
    ) {
        self.event = event
        self.candidates = candidates
        write = store
    }

    /// Stores the page's planned pushes (coalescing each into a pending twin) and advances the event's cursor past
    /// the page. Up to `handOff` pushes due now and without a pending twin are stored already claimed by this process
    /// and returned in `handedOff`.
    public func store(_ pushes: [PlannedPush], handOff: Int) async throws -> FanOutStep {
        try await write(pushes, handOff)
    }
}
