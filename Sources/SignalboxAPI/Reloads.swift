import Foundation

/// `POST .../installations/{installationId}/reloads`: reload receipts, batched by the SDK.
public struct ReloadsRequest: Sendable, Hashable, Codable {
    public var reloads: [ReloadReceiptBody]

    public init(reloads: [ReloadReceiptBody]) {
        self.reloads = reloads
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case reloads }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reloads = try container.decode([ReloadReceiptBody].self, forKey: .reloads)
    }
}

/// One receipt: a widget or control kind reloaded (its timeline or value provider ran) at `at`.
public struct ReloadReceiptBody: Sendable, Hashable, Codable {
    public var kind: String
    /// `widgets` or `controls`.
    public var pushType: String
    public var at: Date

    public init(kind: String, pushType: String, at: Date) {
        self.kind = kind
        self.pushType = pushType
        self.at = at
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case kind, pushType, at }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        pushType = try container.decode(String.self, forKey: .pushType)
        // Strictly `yyyy-MM-ddTHH:mm:ss[.SSS]Z`: Foundation's parser also takes out-of-range fields (minute 99).
        let text = try container.decode(String.self, forKey: .at)
        guard let date = SignalboxJSON.parse(text), text.hasSuffix("Z"), text.count == 20 || text.count == 24,
            SignalboxJSON.format(date).prefix(19) == text.prefix(19)
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .at, in: container, debugDescription: "must be an ISO 8601 UTC date such as 2026-11-25T01:28:45.252Z"
            )
        }
        at = date
    }
}

/// The answer to a batch of receipts, one result per receipt in order.
public struct ReloadsResponse: Sendable, Hashable, Codable {
    public var reloads: [ReloadResult]

    public init(reloads: [ReloadResult]) {
        self.reloads = reloads
    }
}

/// What one receipt answered: the event of the delivered push it was matched to, and the seconds from that event's
/// acceptance to the reload (both absent when unmatched).
public struct ReloadResult: Sendable, Hashable, Codable {
    public var matched: Bool
    public var eventId: String?
    public var eventToReloadSeconds: Double?

    public init(matched: Bool, eventId: String? = nil, eventToReloadSeconds: Double? = nil) {
        self.matched = matched
        self.eventId = eventId
        self.eventToReloadSeconds = eventToReloadSeconds
    }
}
