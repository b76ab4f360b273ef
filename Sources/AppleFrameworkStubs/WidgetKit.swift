#if os(Linux)
import Foundation

// Declarations of the WidgetKit API that SignalboxClientApple uses, written from Apple's public
// documentation so the glue type-checks on Linux. Bodies do nothing; Apple platforms use the real framework.

public enum WidgetFamily: String, Sendable, CustomStringConvertible {
    case systemSmall, systemMedium, systemLarge, systemExtraLarge, accessoryCircular, accessoryRectangular, accessoryInline
    public var description: String { rawValue }
}

/// A configured widget, as WidgetCenter and the push handler describe it.
public struct WidgetInfo: Sendable {
    public let kind: String
    public let family: WidgetFamily
    public init(kind: String, family: WidgetFamily) {
        self.kind = kind
        self.family = family
    }
}

public struct WidgetPushInfo: Sendable {
    public let token: Data
    public init(token: Data) { self.token = token }
}

/// The system creates the handler with `init()` and calls it with the full list of push-enabled widgets.
public protocol WidgetPushHandler {
    init()
    func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo])
}

public final class WidgetCenter: @unchecked Sendable {
    public static let shared = WidgetCenter()
    public var currentPushInfo: WidgetPushInfo? { get async { nil } }
    public func currentConfigurations() async throws -> [WidgetInfo] { [] }
}

public struct ControlPushInfo: Sendable {
    public let token: Data
    public init(token: Data) { self.token = token }
}

/// A user-configured control.
public struct ControlInfo: Sendable {
    public let kind: String
    public var pushInfo: ControlPushInfo?
    public init(kind: String, pushInfo: ControlPushInfo?) {
        self.kind = kind
        self.pushInfo = pushInfo
    }
}

/// Called with every push-enabled control each time, even when only some tokens changed.
public protocol ControlPushHandler {
    init()
    func pushTokensDidChange(controls: [ControlInfo])
}

public final class ControlCenter: @unchecked Sendable {
    public static let shared = ControlCenter()
    public func currentControls() async throws -> [ControlInfo] { [] }
}
#endif
