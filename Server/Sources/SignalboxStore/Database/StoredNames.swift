import SignalboxModel
import SQLKit

/// The SQL backends store the model's enums (states, outcomes, kinds, environments) by their raw values, write them
/// into queries through `\(stored:)`, and read them back through `decode(stored:as:)`: a value that is not a case is
/// an error, never a default. No query spells a stored name by hand.
extension SQLRow {
    /// A column holding an enum's raw value.
    func decode<Value: RawRepresentable>(stored column: String, as type: Value.Type) throws -> Value where Value.RawValue == String {
        let raw = try decode(column: column, as: String.self)
        guard let value = Value(rawValue: raw) else {
            throw StoreError(.unavailable, "unknown \(column) stored: \(raw)")
        }
        return value
    }
}

/// An outbox row: `pending` waits for its due time and a claim; `sending` is claimed (by `claimed_by` until
/// `lease_until`). The memory store says the same with an optional claim.
enum OutboxState: String {
    case pending, sending
}

extension SQLQueryString {
    /// A stored enum value as a SQL string literal (`'pending'`): a literal, not a bind, so that the query planners
    /// match the partial indexes written on it (`WHERE state = 'pending'`).
    mutating func appendInterpolation<Value: RawRepresentable>(stored value: Value) where Value.RawValue == String {
        appendInterpolation(literal: value.rawValue)
    }

    /// Stored enum values as a list of SQL string literals, for `IN (…)`.
    mutating func appendInterpolation<Value: RawRepresentable>(stored values: [Value]) where Value.RawValue == String {
        appendInterpolation(literals: values.map(\.rawValue), joinedBy: ", ")
    }
}
