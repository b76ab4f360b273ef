import SignalboxModel
import SQLKit

/// The SQL backends store the model's enums (states, outcomes, kinds, environments) by their raw values, and read
/// them back through `decode(stored:as:)`: a value that is not a case is an error, never a default.
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
