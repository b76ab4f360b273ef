/// What became of one attempt at a push, as the delivery log keeps it (the raw value is the stored and API name).
public enum DeliveryOutcome: String, Sendable, Hashable, CaseIterable {
    case delivered
    /// Back to pending with one attempt used.
    case retry
    /// Back to pending without using an attempt (the app is paused).
    case postponed
    case failed
    /// The token was removed.
    case pruned

    /// The event counter a push that left the outbox with this outcome adds to; nil while it stays in the outbox.
    public var counter: EventCounter? {
        switch self {
        case .delivered: .delivered
        case .failed: .failed
        case .pruned: .pruned
        case .retry, .postponed: nil
        }
    }
}

/// An event's counters of pushes with a final outcome (`EventStatus`); the raw value names the `events` column.
public enum EventCounter: String, Sendable, Hashable, CaseIterable {
    case delivered, failed, pruned
}
