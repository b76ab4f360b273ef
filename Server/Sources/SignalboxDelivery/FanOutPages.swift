import SignalboxModel

/// How many installations an event's next fan-out page plans: small at first, doubling up to the configured
/// page, so an event's first pushes leave after a page of a few dozen installations is planned instead of a
/// full one (issue 29, first push within 10 ms), while a large audience is soon planned in full pages.
struct FanOutPages {
    /// The first page's size.
    static let first = 32
    let largest: Int
    private var taken: [String: Int] = [:]

    init(largest: Int) {
        self.largest = max(1, largest)
    }

    /// The size of `event`'s next page.
    func size(of event: String) -> Int {
        let doublings = min(taken[event, default: 0], 20)
        return min(largest, Self.first << doublings)
    }

    /// Whether `event` has had no page yet: its first pushes wait for the next one.
    func isFirst(_ event: String) -> Bool { taken[event] == nil }

    /// Counts a page of `event` as taken.
    mutating func took(_ event: String) {
        taken[event, default: 0] += 1
    }

    /// Forgets events no longer queued.
    mutating func keep(only queued: [QueuedEvent]) {
        guard !taken.isEmpty else { return }
        let ids = Set(queued.map(\.id))
        taken = taken.filter { ids.contains($0.key) }
    }
}
