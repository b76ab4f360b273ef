import Metrics
import SignalboxModel
import Synchronization

/// `signalbox_reloads_total{type,kind,matched}` and `signalbox_event_to_reload_seconds{type,kind}`, made once per
/// label set. A kind the installation has not registered is labelled `other`, so a device cannot grow the series.
/// `signalbox_reloads_dropped_total`: receipts deleted by the per-installation cap.
final class ReloadMetrics: Sendable {
    static let shared = ReloadMetrics()

    private let dropped = Counter(label: "signalbox_reloads_dropped_total")

    func countDropped(_ count: Int) { dropped.increment(by: count) }

    private let counters = Mutex<[String: Counter]>([:])
    private let timers = Mutex<[String: Timer]>([:])

    func count(_ match: ReloadMatch) {
        let type = match.receipt.pushType.rawValue
        let kind = match.registered ? match.receipt.kind : "other"
        let matched = match.eventId != nil ? "true" : "false"
        let counter = counters.withLock { counters in
            let key = type + "|" + kind + "|" + matched
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "signalbox_reloads_total", dimensions: [("type", type), ("kind", kind), ("matched", matched)])
            counters[key] = counter
            return counter
        }
        counter.increment()
        guard let seconds = match.eventToReload else { return }
        let timer = timers.withLock { timers in
            let key = type + "|" + kind
            if let timer = timers[key] { return timer }
            let timer = Timer(label: "signalbox_event_to_reload_seconds", dimensions: [("type", type), ("kind", kind)], preferredDisplayUnit: .seconds)
            timers[key] = timer
            return timer
        }
        timer.recordSeconds(seconds)
    }
}
