import Metrics
import SignalboxAPNs
import Synchronization

/// The delivery metrics, made once and reused (creating a metric per push costs a registry lookup):
/// `signalbox_pushes_total{type,outcome,reason}`, `signalbox_event_to_answer_seconds`,
/// `signalbox_tokens_pruned_total`, `signalbox_outbox_depth`.
final class DeliveryMetrics: Sendable {
    private let pushes = Mutex<[PushKey: Counter]>([:])
    let eventToAnswer = Timer(label: "signalbox_event_to_answer_seconds", preferredDisplayUnit: .seconds)
    let tokensPruned = Counter(label: "signalbox_tokens_pruned_total")
    let outboxDepth = Gauge(label: "signalbox_outbox_depth")

    /// `signalbox_pushes_total{type,outcome="delivered",reason=""}` per push type: nearly every answer, counted
    /// without hashing its labels.
    private let delivered = PushType.allCases.sorted { $0.index < $1.index }.map {
        Counter(label: "signalbox_pushes_total", dimensions: [("type", $0.rawValue), ("outcome", "delivered"), ("reason", "")])
    }

    /// Counts one push that APNs accepted.
    func countDelivered(type: PushType) {
        delivered[type.index].increment()
    }

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

private extension PushType {
    /// The type's position in `DeliveryMetrics.delivered`.
    var index: Int {
        switch self {
        case .widgets: 0
        case .controls: 1
        case .fileprovider: 2
        case .alert: 3
        case .background: 4
        case .liveactivity: 5
        }
    }
}
