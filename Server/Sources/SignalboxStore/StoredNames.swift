import SignalboxModel

/// The one mapping between the model's enums and what the SQL backends store: a name read back that is not
/// listed here is an error, never a default.
extension EventCounter {
    /// The `events` column holding the counter.
    var column: String {
        switch self {
        case .delivered: "delivered"
        case .failed: "failed"
        case .pruned: "pruned"
        }
    }
}

extension DeliveryOutcome {
    /// The `outcome` column's value in `delivery_log` and `delivery_runs`.
    var stored: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retry"
        case .postponed: "postponed"
        case .failed: "failed"
        case .pruned: "pruned"
        }
    }

    init(stored: String) throws {
        guard let outcome = Self.allCases.first(where: { $0.stored == stored }) else {
            throw StoreError(.unavailable, "unknown delivery outcome stored: \(stored)")
        }
        self = outcome
    }
}
