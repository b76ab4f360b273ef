import Synchronization

/// The webhook dispatcher's free request slots (taken by the claiming loop, given back by finished sends).
final class WebhookSlots: Sendable {
    private let used = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    var free: Int { limit - used.load(ordering: .acquiring) }
    func take() { used.add(1, ordering: .acquiringAndReleasing) }
    func give() { used.subtract(1, ordering: .acquiringAndReleasing) }
}
