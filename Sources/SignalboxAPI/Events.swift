/// What changed: which widgets, controls or File Provider container should reload.
public enum EventTarget: Sendable, Hashable, Codable {
    /// Widgets of these kinds (every kind when empty) whose configuration matches the filter.
    case widgets(kinds: [String], configuration: [String: JSONValue]?)
    /// Controls of these kinds (every kind when empty) whose configuration matches the filter.
    case controls(kinds: [String], configuration: [String: JSONValue]?)
    /// A container of a File Provider domain (`NSFileProviderWorkingSetContainerItemIdentifier` for the working set).
    case fileProvider(domain: String, container: String)

    enum CodingKeys: String, CodingKey, CaseIterable { case widgets, controls, fileProvider }

    struct Kinds: Codable {
        var kinds: [String]
        var configuration: [String: JSONValue]?
        enum CodingKeys: String, CodingKey, CaseIterable { case kinds, configuration }
        init(kinds: [String], configuration: [String: JSONValue]?) {
            self.kinds = kinds
            self.configuration = configuration
        }
        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // No kinds (or none listed) means every kind: `reloadAllTimelines()` / `reloadAllControls()`.
            kinds = try container.decodeIfPresent([String].self, forKey: .kinds) ?? []
            configuration = try container.decodeIfPresent([String: JSONValue].self, forKey: .configuration)
        }
    }

    struct Container: Codable {
        var domain: String
        var container: String
        enum CodingKeys: String, CodingKey, CaseIterable { case domain, container }
        init(domain: String, container: String) {
            self.domain = domain
            self.container = container
        }
        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let values = try decoder.container(keyedBy: CodingKeys.self)
            domain = try values.decode(String.self, forKey: .domain)
            container = try values.decode(String.self, forKey: .container)
        }
    }

    public init(from decoder: any Decoder) throws {
        let (container, key) = try decoder.exactlyOneKey(CodingKeys.self)
        switch key {
        case .widgets:
            let value = try container.decode(Kinds.self, forKey: .widgets)
            self = .widgets(kinds: value.kinds, configuration: value.configuration)
        case .controls:
            let value = try container.decode(Kinds.self, forKey: .controls)
            self = .controls(kinds: value.kinds, configuration: value.configuration)
        case .fileProvider:
            let value = try container.decode(Container.self, forKey: .fileProvider)
            self = .fileProvider(domain: value.domain, container: value.container)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .widgets(let kinds, let configuration): try container.encode(Kinds(kinds: kinds, configuration: configuration), forKey: .widgets)
        case .controls(let kinds, let configuration): try container.encode(Kinds(kinds: kinds, configuration: configuration), forKey: .controls)
        case .fileProvider(let domain, let value): try container.encode(Container(domain: domain, container: value), forKey: .fileProvider)
        }
    }
}

/// Who the event is for.
public enum Audience: Sendable, Hashable, Codable {
    case users([String])
    case channels([String])
    case installations([String])
    case all

    enum CodingKeys: String, CodingKey, CaseIterable { case users, channels, installations, all }

    public init(from decoder: any Decoder) throws {
        let (container, key) = try decoder.exactlyOneKey(CodingKeys.self)
        switch key {
        case .users: self = .users(try container.decode([String].self, forKey: .users))
        case .channels: self = .channels(try container.decode([String].self, forKey: .channels))
        case .installations: self = .installations(try container.decode([String].self, forKey: .installations))
        case .all:
            guard try container.decode(Bool.self, forKey: .all) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.all], debugDescription: "must be true"))
            }
            self = .all
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .users(let values): try container.encode(values, forKey: .users)
        case .channels(let values): try container.encode(values, forKey: .channels)
        case .installations(let values): try container.encode(values, forKey: .installations)
        case .all: try container.encode(true, forKey: .all)
        }
    }
}

/// `POST /v1/apps/{appId}/events`.
public struct EventRequest: Sendable, Hashable, Codable {
    public var target: EventTarget
    public var audience: Audience

    public init(target: EventTarget, audience: Audience) {
        self.target = target
        self.audience = audience
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case target, audience }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        target = try container.decode(EventTarget.self, forKey: .target)
        audience = try container.decode(Audience.self, forKey: .audience)
    }
}

/// The `202` answer to `POST .../events`.
public struct EventAcceptedResponse: Sendable, Hashable, Codable {
    public var eventId: String

    public init(eventId: String) {
        self.eventId = eventId
    }
}

/// `GET /v1/apps/{appId}/events/{eventId}`.
public struct EventStatusResponse: Sendable, Hashable, Codable {
    public var eventId: String
    /// `accepted`, `fanning-out`, `delivering`, `done` or `failed` (the fan-out kept failing; see `reason`).
    public var state: String
    public var matched: Int
    public var coalesced: Int
    public var delivered: Int
    public var pending: Int
    public var failed: Int
    public var pruned: Int
    /// Why the event failed (only with `failed`).
    public var reason: String?

    public init(
        eventId: String, state: String, matched: Int, coalesced: Int, delivered: Int, pending: Int, failed: Int, pruned: Int,
        reason: String? = nil
    ) {
        self.eventId = eventId
        self.reason = reason
        self.state = state
        self.matched = matched
        self.coalesced = coalesced
        self.delivered = delivered
        self.pending = pending
        self.failed = failed
        self.pruned = pruned
    }
}

/// `POST /v1/apps/{appId}/pushes`: one push to one token, for testing.
public struct PushRequest: Sendable, Hashable, Codable {
    public var pushToken: String
    public var pushType: String
    public var environment: String?
    public var payload: JSONValue?
    public var priority: Int?
    public var expiration: Int64?
    public var collapseId: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case pushToken, pushType, environment, payload, priority, expiration, collapseId }

    public init(
        pushToken: String, pushType: String, environment: String? = nil, payload: JSONValue? = nil, priority: Int? = nil,
        expiration: Int64? = nil, collapseId: String? = nil
    ) {
        self.pushToken = pushToken
        self.pushType = pushType
        self.environment = environment
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushToken = try container.decode(String.self, forKey: .pushToken)
        pushType = try container.decode(String.self, forKey: .pushType)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        expiration = try container.decodeIfPresent(Int64.self, forKey: .expiration)
        collapseId = try container.decodeIfPresent(String.self, forKey: .collapseId)
    }
}

/// The APNs answer to `POST .../pushes`.
public struct PushResponse: Sendable, Hashable, Codable {
    public var status: Int
    public var reason: String?
    public var apnsId: String?
    public var outcome: String

    public init(status: Int, reason: String?, apnsId: String?, outcome: String) {
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.outcome = outcome
    }
}
