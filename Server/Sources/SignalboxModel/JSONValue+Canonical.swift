import Foundation
import SignalboxAPI

extension JSONValue {
    /// JSON text with sorted keys: equal values give equal text (stored, and compared for idempotent writes).
    public var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// Parses stored JSON text.
    public init(json: String) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }
}
