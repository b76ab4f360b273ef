import SignalboxModel
import SQLKit

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

extension SQLRow {
    /// A column holding an enum's raw value (states, kinds, environments): a value that is not a case is an error,
    /// never a default.
    func decode<Value: RawRepresentable>(stored column: String, as type: Value.Type) throws -> Value where Value.RawValue == String {
        let raw = try decode(column: column, as: String.self)
        guard let value = Value(rawValue: raw) else {
            throw StoreError(.unavailable, "unknown \(column) stored: \(raw)")
        }
        return value
    }
}

extension SQLRegistryStore {
    /// `EventStatus`'s "done" rule in SQL, the one place the backends state it: the fan-out finished (`delivering`)
    /// and every planned push has a final outcome. `done` itself is never stored.
    static var eventIsDone: SQLQueryString { "state = 'delivering' AND delivered + failed + pruned >= matched" }
}
