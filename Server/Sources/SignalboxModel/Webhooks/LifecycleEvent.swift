import Foundation
import SignalboxAPI

/// A fact about an app that its backend hears through webhooks and can read back by cursor
/// (`GET /v1/apps/{appId}/webhooks/events`).
public struct LifecycleEvent: Sendable, Equatable {
    /// What happened; the `type` field of a delivery's body.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// APNs said a token is gone (410 or repeated BadDeviceToken); it was removed from every registration.
        case tokenPruned = "token.pruned"
        /// A token registered by one installation was given up by another installation of the same user.
        case tokenMoved = "token.moved"
        /// Every push of an event has an outcome.
        case eventDone = "event.done"
        /// An event's fan-out was given up.
        case eventFailed = "event.failed"
        /// APNs refused the app's credentials; its sending is paused.
        case appPaused = "app.paused"
        /// A push of a paused app was accepted again.
        case appResumed = "app.resumed"
        /// Sent only by `POST …/webhooks/{id}/test`, to that endpoint; never stored or replayed.
        case test = "webhook.test"

        /// The kinds an endpoint can subscribe to (all but `test`).
        public static let subscribable = allCases.filter { $0 != .test }
    }

    /// Sortable: its order is the order of `GET …/webhooks/events` (the cursor is the last id read).
    public let id: String
    public let appId: String
    public let kind: Kind
    public let occurredAt: Date
    /// The delivery's JSON body, exactly as sent and as listed.
    public let body: String

    public init(id: String, appId: String, kind: Kind, occurredAt: Date, body: String) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.occurredAt = occurredAt
        self.body = body
    }

    /// A new event with a fresh id and its body: `{"id","type","appId","occurredAt","data"}`.
    /// - Parameter data: the event's details (field names in camelCase; dates as ISO 8601 strings).
    public static func make(appId: String, kind: Kind, at date: Date, data: [String: JSONValue]) -> LifecycleEvent {
        let id = LifecycleEventID.next(at: date)
        let body: JSONValue = .object([
            "id": .string(id), "type": .string(kind.rawValue), "appId": .string(appId),
            "occurredAt": .string(SignalboxJSON.format(date)), "data": .object(data),
        ])
        return LifecycleEvent(id: id, appId: appId, kind: kind, occurredAt: date, body: body.canonicalJSON)
    }
}
