/// `GET /v1/apps/{appId}/tokens/{token}`: where a token is registered and its latest delivery-log lines.
public struct TokenInspectionResponse: Sendable, Hashable, Codable {
    public var token: String
    public var registrations: [TokenRegistrationResponse]
    /// Newest first.
    public var deliveries: [DeliveryLogResponse]

    public init(token: String, registrations: [TokenRegistrationResponse], deliveries: [DeliveryLogResponse]) {
        self.token = token
        self.registrations = registrations
        self.deliveries = deliveries
    }
}

/// One registration holding a token.
public struct TokenRegistrationResponse: Sendable, Hashable, Codable {
    public var installationId: String
    public var userId: String?
    /// `widgets`, `controls` or `fileprovider`.
    public var kind: String
    /// What the token reloads: widget kinds (with family), the control's kind, or File Provider domains.
    public var targets: [String]
    /// The configurations registered with it (JSON objects).
    public var configurations: [JSONValue]
    /// When the token was last registered (ISO 8601, UTC).
    public var tokenSeenAt: String

    public init(installationId: String, userId: String?, kind: String, targets: [String], configurations: [JSONValue], tokenSeenAt: String) {
        self.installationId = installationId
        self.userId = userId
        self.kind = kind
        self.targets = targets
        self.configurations = configurations
        self.tokenSeenAt = tokenSeenAt
    }
}

/// One line of the delivery log: one attempt at one push.
public struct DeliveryLogResponse: Sendable, Hashable, Codable {
    public var token: String
    public var pushType: String
    /// The event behind the push; absent for a push sent directly.
    public var eventId: String?
    /// `delivered`, `retry`, `postponed`, `failed` or `pruned`.
    public var outcome: String
    /// APNs's HTTP status; absent when no answer came.
    public var status: Int?
    /// APNs's reason, or the transport's error code.
    public var reason: String?
    public var apnsId: String?
    public var attempt: Int
    /// ISO 8601, UTC.
    public var at: String

    public init(
        token: String, pushType: String, eventId: String?, outcome: String, status: Int?, reason: String?, apnsId: String?, attempt: Int, at: String
    ) {
        self.token = token
        self.pushType = pushType
        self.eventId = eventId
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.attempt = attempt
        self.at = at
    }
}

/// `GET /v1/apps/{appId}/events`: a page of events, newest first.
public struct EventListResponse: Sendable, Hashable, Codable {
    public var events: [EventListItem]
    /// Pass as `after` for the next page; absent on the last page.
    public var next: String?

    public init(events: [EventListItem], next: String?) {
        self.events = events
        self.next = next
    }
}

/// An event in a list: its status and when it was accepted.
public struct EventListItem: Sendable, Hashable, Codable {
    public var createdAt: String
    public var status: EventStatusResponse

    public init(createdAt: String, status: EventStatusResponse) {
        self.createdAt = createdAt
        self.status = status
    }

    enum CodingKeys: String, CodingKey { case createdAt }

    // Flat in JSON: the event's status fields and `createdAt` side by side.
    public init(from decoder: any Decoder) throws {
        createdAt = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .createdAt)
        status = try EventStatusResponse(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// `GET /v1/apps/{appId}/installations`: a page of the app's installation ids, in id order.
public struct InstallationPage: Sendable, Hashable, Codable {
    public var installationIds: [String]
    /// Pass as `after` for the next page; absent on the last page.
    public var next: String?

    public init(installationIds: [String], next: String?) {
        self.installationIds = installationIds
        self.next = next
    }
}
