import Foundation

/// A widget or control kind that reloaded on a device (its timeline or value provider ran), as the SDK reports it.
public struct ReloadReceipt: Sendable, Hashable {
    public var kind: String
    /// `widgets` or `controls`: the push type whose push it answers.
    public var pushType: PushKind
    public var at: Date

    public init(kind: String, pushType: PushKind, at: Date) {
        self.kind = kind
        self.pushType = pushType
        self.at = at
    }
}

/// What became of one receipt: the push it answered, if any, and the time from that push's event to the reload.
public struct ReloadMatch: Sendable, Hashable {
    public var receipt: ReloadReceipt
    /// Whether the installation has the receipt's kind registered (for its push type); only then can it match.
    public var registered: Bool
    /// The event of the matched push; nil when no delivered push came before (within the window) or the push was
    /// already answered for this kind.
    public var eventId: String?
    /// From the event's acceptance to the reload; nil when unmatched or the event is gone.
    public var eventToReload: TimeInterval?

    public init(receipt: ReloadReceipt, registered: Bool, eventId: String?, eventToReload: TimeInterval?) {
        self.receipt = receipt
        self.registered = registered
        self.eventId = eventId
        self.eventToReload = eventToReload
    }
}

/// A batch of receipts recorded: what became of each, and how many of the installation's oldest receipts the
/// per-installation cap dropped to make room.
public struct RecordedReloads: Sendable, Hashable {
    public var matches: [ReloadMatch]
    public var dropped: Int

    public init(matches: [ReloadMatch], dropped: Int) {
        self.matches = matches
        self.dropped = dropped
    }
}

/// An app's reloads of one kind over a period, for the dashboard.
public struct ReloadStats: Sendable, Hashable {
    public var pushType: PushKind
    public var kind: String
    /// Pushes of this type delivered to installations that have the kind registered.
    public var delivered: Int
    public var matched: Int
    public var unmatched: Int
    /// Event-to-reload seconds of the matched receipts, ascending (a store may read a bounded sample: the newest).
    public var latencies: [TimeInterval]

    public init(pushType: PushKind, kind: String, delivered: Int, matched: Int, unmatched: Int, latencies: [TimeInterval]) {
        self.pushType = pushType
        self.kind = kind
        self.delivered = delivered
        self.matched = matched
        self.unmatched = unmatched
        self.latencies = latencies
    }

    /// The `fraction` quantile (nearest rank) of the latencies, or nil when there are none.
    public func quantile(_ fraction: Double) -> TimeInterval? {
        guard !latencies.isEmpty else { return nil }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up))
        return latencies[min(max(rank, 1), latencies.count) - 1]
    }
}
