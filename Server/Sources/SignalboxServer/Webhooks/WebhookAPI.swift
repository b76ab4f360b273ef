import Foundation
import SignalboxAPI
import SignalboxModel

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
package struct WebhookEndpointResponse: Encodable, Sendable {
    package var id: String
    package var url: String
    package var eventTypes: [String]
    package var createdAt: Date
    /// Shown once, at creation.
    package var secret: String?
    /// While a rotation's overlap lasts, deliveries carry a signature with the previous secret too.
    package var previousSecretValidUntil: Date?
    package var lastSuccessAt: Date?
    package var lastError: String?
    package var lastErrorAt: Date?
    /// Deliveries queued for this endpoint and not yet accepted.
    package var backlog: Int
}

extension WebhookEndpointResponse {
    /// What the API shows of a stored endpoint (never its secret).
    init(_ status: WebhookEndpointStatus) {
        let endpoint = status.endpoint
        self.init(
            id: endpoint.id, url: endpoint.url, eventTypes: endpoint.kinds.map(\.rawValue), createdAt: endpoint.createdAt, secret: nil,
            previousSecretValidUntil: endpoint.previousSealedSecret == nil ? nil : endpoint.previousSecretExpiresAt,
            lastSuccessAt: status.lastSuccessAt, lastError: status.lastError, lastErrorAt: status.lastErrorAt, backlog: status.backlog
        )
    }
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

package struct WebhookSecretResponse: Encodable, Sendable {
    package var id: String
    package var secret: String
    package var previousSecretValidUntil: Date?
}

/// `POST …/webhooks/{id}/test`: what came of a signed `webhook.test` delivery: the status and time, never the body.
package struct WebhookTestResponse: Encodable, Sendable {
    package var delivered: Bool
    package var status: Int?
    /// From sending to the answer's status, in milliseconds (absent when nothing was sent).
    package var latencyMs: Int?
    package var error: String?
    package var eventId: String
}

/// `GET …/webhooks/events`: lifecycle events in order, and the cursor to pass as `after` for the next page.
struct LifecycleEventList: Encodable, Sendable {
    var events: [JSONValue]
    /// The last event's id: pass it as `after` to read on (present whenever `events` is not empty).
    var next: String?
}
