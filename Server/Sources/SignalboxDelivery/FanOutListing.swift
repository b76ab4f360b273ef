import Foundation
import SignalboxModel

/// The events to fan out as last listed, reused by the next round while nothing can have changed them: no event
/// accepted since (here or, as notified, by another instance), every event of the last round planned a page and
/// none finished, failed or was busy. A listing is a statement of its own, and a lone large event's rounds listed
/// before each page, a round trip the loop waited for between its steps (docs/performance.md).
struct FanOutListing {
    /// The longest a listing is reused, by the engine's clock: it also brings in what a lost notification of
    /// another instance's event did not.
    static let maximumAge: TimeInterval = 1
    private(set) var events: [QueuedEvent] = []
    private var listed: (accepted: Int, at: Date)?

    /// Whether `events` may be used again, with `accepted` events accepted so far, at `now`.
    func isCurrent(accepted: Int, now: Date) -> Bool {
        guard let listed, listed.accepted == accepted else { return false }
        let age = now.timeIntervalSince(listed.at)
        return age >= 0 && age < Self.maximumAge
    }

    /// Keeps `events`, listed after `accepted` events were accepted, at `now`.
    mutating func update(_ events: [QueuedEvent], accepted: Int, at now: Date) {
        self.events = events
        listed = (accepted, now)
    }

    /// Makes the next round list again.
    mutating func invalidate() { listed = nil }
}
