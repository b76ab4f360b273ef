import Foundation

/// `PUT .../installations/{installationId}`.
public struct InstallationRequest: Sendable, Hashable, Codable {
    public var userId: String?
    public var channels: [String]
    /// `sandbox` or `production`; the app's default when absent.
    public var environment: String?
    /// The client's revision of this snapshot; see `Revision`.
    public var revision: Int64?

    public init(userId: String? = nil, channels: [String] = [], environment: String? = nil, revision: Int64? = nil) {
        self.userId = userId
        self.channels = channels
        self.environment = environment
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case userId, channels, environment, revision }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decodeIfPresent(String.self, forKey: .userId)
        channels = try container.decodeIfPresent([String].self, forKey: .channels) ?? []
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        revision = try container.decodeIfPresent(Int64.self, forKey: .revision)
    }
}

/// One push-enabled widget.
public struct Widget: Sendable, Hashable, Codable {
    public var kind: String
    public var family: String
    public var configuration: JSONValue

    public init(kind: String, family: String, configuration: JSONValue = .object([:])) {
        self.kind = kind
        self.family = family
        self.configuration = configuration
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case kind, family, configuration }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        family = try container.decode(String.self, forKey: .family)
        configuration = try container.decodeIfPresent(JSONValue.self, forKey: .configuration) ?? .object([:])
    }
}

/// `PUT .../widgets`: the WidgetKit push token and every push-enabled widget; replaces the set.
public struct WidgetsRequest: Sendable, Hashable, Codable {
    public var pushToken: String
    public var widgets: [Widget]
    /// The client's revision of this snapshot; see `Revision`.
    public var revision: Int64?

    public init(pushToken: String, widgets: [Widget], revision: Int64? = nil) {
        self.pushToken = pushToken
        self.widgets = widgets
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case pushToken, widgets, revision }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushToken = try container.decode(String.self, forKey: .pushToken)
        widgets = try container.decode([Widget].self, forKey: .widgets)
        revision = try container.decodeIfPresent(Int64.self, forKey: .revision)
    }
}

/// One configured control and its own push token.
public struct Control: Sendable, Hashable, Codable {
    public var kind: String
    public var configuration: JSONValue
    public var pushToken: String

    public init(kind: String, configuration: JSONValue = .object([:]), pushToken: String) {
        self.kind = kind
        self.configuration = configuration
        self.pushToken = pushToken
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case kind, configuration, pushToken }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        configuration = try container.decodeIfPresent(JSONValue.self, forKey: .configuration) ?? .object([:])
        pushToken = try container.decode(String.self, forKey: .pushToken)
    }
}

/// `PUT .../controls`: every push-enabled control; replaces the set.
public struct ControlsRequest: Sendable, Hashable, Codable {
    public var controls: [Control]
    /// The client's revision of this snapshot; see `Revision`.
    public var revision: Int64?

    public init(controls: [Control], revision: Int64? = nil) {
        self.controls = controls
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case controls, revision }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        controls = try container.decode([Control].self, forKey: .controls)
        revision = try container.decodeIfPresent(Int64.self, forKey: .revision)
    }
}

/// A File Provider domain; a replicated domain is always told about the working set.
public struct FileProviderDomain: Sendable, Hashable, Codable {
    public var id: String
    public var replicated: Bool

    public init(id: String, replicated: Bool) {
        self.id = id
        self.replicated = replicated
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case id, replicated }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        replicated = try container.decodeIfPresent(Bool.self, forKey: .replicated) ?? false
    }
}

/// `PUT .../file-provider`: the PushKit File Provider token and the domains; replaces the set.
public struct FileProviderRequest: Sendable, Hashable, Codable {
    public var pushToken: String
    public var domains: [FileProviderDomain]
    /// The client's revision of this snapshot; see `Revision`.
    public var revision: Int64?

    public init(pushToken: String, domains: [FileProviderDomain], revision: Int64? = nil) {
        self.pushToken = pushToken
        self.domains = domains
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case pushToken, domains, revision }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushToken = try container.decode(String.self, forKey: .pushToken)
        domains = try container.decode([FileProviderDomain].self, forKey: .domains)
        revision = try container.decodeIfPresent(Int64.self, forKey: .revision)
    }
}

/// `PUT .../enumerators/{containerId}`: an enumerator is live for `leaseSeconds` (server default when absent).
public struct EnumeratorRequest: Sendable, Hashable, Codable {
    public var leaseSeconds: Int?
    /// The client's revision of this enumerator (shared with its `DELETE`'s `?revision=`); see `Revision`.
    public var revision: Int64?

    public init(leaseSeconds: Int? = nil, revision: Int64? = nil) {
        self.leaseSeconds = leaseSeconds
        self.revision = revision
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case leaseSeconds, revision }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        leaseSeconds = try container.decodeIfPresent(Int.self, forKey: .leaseSeconds)
        revision = try container.decodeIfPresent(Int64.self, forKey: .revision)
    }
}

/// A live enumerator as `GET .../installations/{id}` shows it.
public struct EnumeratorLease: Sendable, Hashable, Codable {
    public var domain: String
    public var container: String
    /// ISO 8601 UTC on the wire (`SignalboxJSON`).
    public var expiresAt: Date

    public init(domain: String, container: String, expiresAt: Date) {
        self.domain = domain
        self.container = container
        self.expiresAt = expiresAt
    }
}

/// `GET .../installations/{installationId}`.
public struct InstallationResponse: Sendable, Hashable, Codable {
    public struct FileProvider: Sendable, Hashable, Codable {
        public var pushToken: String
        public var domains: [FileProviderDomain]
        public var enumerators: [EnumeratorLease]

        public init(pushToken: String, domains: [FileProviderDomain], enumerators: [EnumeratorLease]) {
            self.pushToken = pushToken
            self.domains = domains
            self.enumerators = enumerators
        }
    }

    public var installationId: String
    public var userId: String?
    public var channels: [String]
    public var environment: String
    public var widgets: WidgetsRequest?
    public var controls: [Control]
    public var fileProvider: FileProvider?
    /// When the installation was last written (ISO 8601 UTC on the wire).
    public var lastSeenAt: Date

    public init(
        installationId: String, userId: String?, channels: [String], environment: String, widgets: WidgetsRequest?,
        controls: [Control], fileProvider: FileProvider?, lastSeenAt: Date
    ) {
        self.installationId = installationId
        self.userId = userId
        self.channels = channels
        self.environment = environment
        self.widgets = widgets
        self.controls = controls
        self.fileProvider = fileProvider
        self.lastSeenAt = lastSeenAt
    }
}
