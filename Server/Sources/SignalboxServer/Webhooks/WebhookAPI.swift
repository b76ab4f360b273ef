import Foundation
import SignalboxAPI

/// `POST /v1/apps/{appId}/webhooks`.
struct CreateWebhookRequest: Decodable, Sendable {
    var url: String
    /// Lifecycle event types sent to this endpoint; absent or empty: every type.
    var eventTypes: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable { case url, eventTypes }

    init(from decoder: any Decoder) throws {
        try ClosedObject.check(decoder, CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        eventTypes = try container.decodeIfPresent([String].self, forKey: .eventTypes)
    }
}

/// Refuses a request object with a field its type does not know (the OpenAPI schemas are closed).
enum ClosedObject {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func check<Keys: CodingKey & CaseIterable>(_ decoder: any Decoder, _ keys: Keys.Type) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = container.allKeys.first(where: { Keys(stringValue: $0.stringValue) == nil }) {
            throw DecodingError.dataCorrupted(.init(codingPath: [unknown], debugDescription: "unknown field \(unknown.stringValue.prefix(64))"))
        }
    }
}

/// An endpoint and its status. `secret` only in the answer that created it.
struct WebhookEndpointResponse: Encodable, Sendable {
    var id: String
    var url: String
    var eventTypes: [String]
    var createdAt: Date
    /// Shown once, at creation.
    var secret: String?
    /// While a rotation's overlap lasts, deliveries carry a signature with the previous secret too.
    var previousSecretValidUntil: Date?
    var lastSuccessAt: Date?
    var lastError: String?
    var lastErrorAt: Date?
    /// Deliveries queued for this endpoint and not yet accepted.
    var backlog: Int
}

struct WebhookEndpointList: Encodable, Sendable {
    var endpoints: [WebhookEndpointResponse]
}

/// `POST …/webhooks/{id}/secret`: how long the current secret keeps signing beside the new one.
struct WebhookSecretRotation: Decodable, Sendable {
    var overlapSeconds: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case overlapSeconds }

    init(overlapSeconds: Int? = nil) { self.overlapSeconds = overlapSeconds }

    init(from decoder: any Decoder) throws {
        try ClosedObject.check(decoder, CodingKeys.self)
        overlapSeconds = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int.self, forKey: .overlapSeconds)
    }
}

struct WebhookSecretResponse: Encodable, Sendable {
    var id: String
    var secret: String
    var previousSecretValidUntil: Date?
}

/// `POST …/webhooks/{id}/test`: what the endpoint answered to a signed `webhook.test` delivery.
struct WebhookTestResponse: Encodable, Sendable {
    var delivered: Bool
    var status: Int?
    var error: String?
    var eventId: String
}

/// `GET …/webhooks/events`: lifecycle events in order, and the cursor to pass as `after` for the next page.
struct LifecycleEventList: Encodable, Sendable {
    var events: [JSONValue]
    /// The last event's id: pass it as `after` to read on (present whenever `events` is not empty).
    var next: String?
}
