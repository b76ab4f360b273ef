/// An `apns-push-type` value Signalbox sends, with its topic suffix and per-type defaults (`apns.md` §1.3–1.4).
public enum PushType: String, Sendable, Hashable, CaseIterable, Codable {
    /// WidgetKit widget reload (`WidgetPushInfo.token`).
    case widgets
    /// Control Center control reload (`ControlPushInfo.token`), one token per control.
    case controls
    /// File Provider enumerator signal (PushKit `.fileProvider` token).
    case fileprovider
    /// A user-visible notification (raw push endpoint only).
    case alert
    /// A silent background update (raw push endpoint only).
    case background
    /// A Live Activity update (raw push endpoint only).
    case liveactivity

    /// The suffix appended to the bundle id to form `apns-topic`.
    public var topicSuffix: String {
        switch self {
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        case .fileprovider: ".pushkit.fileprovider"
        case .alert, .background: ""
        case .liveactivity: ".push-type.liveactivity"
        }
    }

    /// The `apns-priority` sent when the caller does not choose one; `nil` sends no header (APNs uses 10).
    ///
    /// Widgets send none, as Apple's example does; controls use Apple's 10; File Provider uses 5.
    public var defaultPriority: Priority? {
        switch self {
        case .widgets, .alert: nil
        case .controls: .immediate
        case .fileprovider, .background, .liveactivity: .conserveEnergy
        }
    }

    /// The `apns-expiration` sent when the caller does not choose one; `nil` sends no header.
    ///
    /// Controls use Apple's `0` (deliver now or never); widgets must not carry an expiration.
    public var defaultExpiration: Expiration? {
        switch self {
        case .controls: .immediately
        case .widgets, .fileprovider, .alert, .background, .liveactivity: nil
        }
    }

    /// The largest payload APNs accepts for this type, in bytes.
    public var maximumPayloadSize: Int { 4096 }

    /// Derives the push type from an `apns-topic` and its bundle id, or `nil` when the suffix is unknown.
    public static func matching(topic: String, bundleId: String) -> PushType? {
        guard topic.hasPrefix(bundleId) else { return nil }
        let suffix = topic.dropFirst(bundleId.count)
        return [.widgets, .controls, .fileprovider, .liveactivity].first { $0.topicSuffix == suffix }
    }
}

/// `apns-priority`: how urgently APNs delivers the push.
public enum Priority: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Send now (10).
    case immediate = 10
    /// Send according to the device's power considerations (5).
    case conserveEnergy = 5
    /// Device power over everything; never wakes the device (1).
    case background = 1
}

/// `apns-expiration`: how long APNs keeps trying to deliver a push.
public enum Expiration: Sendable, Hashable, Codable {
    /// `0`: one delivery attempt, never stored.
    case immediately
    /// Stored and retried until this UNIX time (seconds).
    case at(epochSeconds: Int64)

    /// The header value.
    public var headerValue: String {
        switch self {
        case .immediately: "0"
        case .at(let seconds): String(seconds)
        }
    }

    /// Parses an `apns-expiration` header value (non-negative integer seconds).
    public init?(headerValue: String) {
        guard let seconds = Int64(headerValue), seconds >= 0 else { return nil }
        self = seconds == 0 ? .immediately : .at(epochSeconds: seconds)
    }
}
