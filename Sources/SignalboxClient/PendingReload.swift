import Foundation

/// The push type a reload answers: a widget kind's timeline or a control kind's value was reloaded.
public enum ReloadPushType: String, Sendable, Hashable, Codable {
    case widgets, controls
}

/// A reload receipt waiting in the store to be sent with the next batch.
public struct PendingReload: Sendable, Hashable, Codable {
    public var kind: String
    public var pushType: ReloadPushType
    public var at: Date

    public init(kind: String, pushType: ReloadPushType, at: Date) {
        self.kind = kind
        self.pushType = pushType
        self.at = at
    }
}
