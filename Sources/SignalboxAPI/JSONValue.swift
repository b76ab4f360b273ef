/// Any JSON value; used for widget and control `configuration` objects.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Nesting depth: 1 for a scalar, one more per array or object level.
    public var depth: Int {
        switch self {
        case .array(let values): 1 + (values.map(\.depth).max() ?? 0)
        case .object(let values): 1 + (values.values.map(\.depth).max() ?? 0)
        default: 1
        }
    }

    /// Whether every key of `filter` has an equal value here (an event's configuration filter).
    public func matches(filter: [String: JSONValue]) -> Bool {
        guard case .object(let values) = self else { return filter.isEmpty }
        return filter.allSatisfy { values[$0.key] == $0.value }
    }
}

/// A coding key for any string, used to find unknown fields.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws when the object holds a field that `Keys` does not list.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.first(where: { Keys(stringValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [unknown], debugDescription: "unknown field '\(unknown.stringValue)'")
            )
        }
    }

    /// For a choice object (`{"widgets": …}` or `{"controls": …}`): its container and the one key it holds.
    func exactlyOneKey<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws -> (KeyedDecodingContainer<Keys>, Keys) {
        try rejectUnknownKeys(keys)
        let container = try container(keyedBy: Keys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            let names = Keys.allCases.map(\.stringValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "must hold exactly one of \(names)"))
        }
        return (container, key)
    }
}
