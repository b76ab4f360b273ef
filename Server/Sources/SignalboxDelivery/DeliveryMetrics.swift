import Metrics
import Synchronization

/// The delivery metrics, made once and reused (creating a metric per push costs a registry lookup):
/// `signalbox_pushes_total{type,outcome,reason}`, `signalbox_event_to_answer_seconds`,
/// `signalbox_tokens_pruned_total`, `signalbox_outbox_depth`.
final class DeliveryMetrics: Sendable {
    private let pushes = Mutex<[PushKey: Counter]>([:])
    let eventToAnswer = Timer(label: "signalbox_event_to_answer_seconds", preferredDisplayUnit: .seconds)
    let tokensPruned = Counter(label: "signalbox_tokens_pruned_total")
    let outboxDepth = Gauge(label: "signalbox_outbox_depth")

    /// Counts one APNs answer (or transport failure) for a push type.
    func countPush(type: String, outcome: String, reason: String) {
        let key = PushKey(type: type, outcome: outcome, reason: reason)
        let counter = pushes.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "signalbox_pushes_total", dimensions: [("type", type), ("outcome", outcome), ("reason", reason)])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}

/// The labels of one `signalbox_pushes_total` series: hashed as they are, without building a string per push.
private struct PushKey: Hashable {
    let type: String
    let outcome: String
    let reason: String
}
