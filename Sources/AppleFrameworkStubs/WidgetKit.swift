#if os(Linux)
import Foundation

// WidgetKit as Apple's iOS 26.0 SDK declares it (WidgetKit.swiftinterface; docs/apple-symbols.md lists each symbol
// with its source), reduced to what SignalboxClientApple touches, so the glue type-checks on Linux against the same
// signatures as on Apple platforms. Apple's types have no public initializers; values are made by the test runtime
// (`AppleStubRuntime`, this module), which also answers `WidgetCenter` and `ControlCenter` from the state it holds.

@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@preconcurrency public enum WidgetFamily: Int, RawRepresentable, CustomDebugStringConvertible, CustomStringConvertible, Sendable {
    @available(iOS 14.0, macOS 11.0, visionOS 26.0, *) @available(tvOS, unavailable) @available(watchOS, unavailable)
    case systemSmall
    @available(iOS 14.0, macOS 11.0, visionOS 26.0, *) @available(tvOS, unavailable) @available(watchOS, unavailable)
    case systemMedium
    @available(iOS 14.0, macOS 11.0, visionOS 26.0, *) @available(tvOS, unavailable) @available(watchOS, unavailable)
    case systemLarge
    @available(iOS 15.0, macOS 14.0, visionOS 26.0, *) @available(tvOS, unavailable) @available(watchOS, unavailable)
    case systemExtraLarge
    @available(visionOS 26.0, *) @available(iOS, unavailable) @available(macOS, unavailable) @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    case systemExtraLargePortrait
    @available(watchOS 9.0, *) @available(iOS, unavailable) @available(macOS, unavailable) @available(visionOS, unavailable)
    @available(macCatalyst, unavailable) @available(tvOS, unavailable)
    case accessoryCorner
    @available(iOS 16.0, watchOS 9.0, *) @available(macOS, unavailable) @available(tvOS, unavailable) @available(visionOS, unavailable)
    case accessoryCircular
    @available(iOS 16.0, watchOS 9.0, *) @available(macOS, unavailable) @available(tvOS, unavailable) @available(visionOS, unavailable)
    case accessoryRectangular
    @available(iOS 16.0, watchOS 9.0, *) @available(macOS, unavailable) @available(tvOS, unavailable) @available(visionOS, unavailable)
    case accessoryInline

    /// Apple's text is not documented (docs/apple-symbols.md); the glue does not read it.
    public var description: String { "WidgetFamily(\(rawValue))" }
    public var debugDescription: String { description }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
public struct WidgetPushInfo: Sendable {
    public let token: Data
    init(token: Data) { self.token = token }
}

@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
@available(tvOS, unavailable)
@preconcurrency public struct WidgetInfo: Sendable {
    public let family: WidgetFamily
    public let kind: String
    /// Stands for the widget's intent (Apple: `configuration: INIntent?` and `widgetConfigurationIntent(of:)`).
    let intent: (any Sendable)?

    init(kind: String, family: WidgetFamily, intent: (any Sendable)?) {
        self.kind = kind
        self.family = family
        self.intent = intent
        serial = AppleStubRuntime.nextSerial()
    }

    /// Makes each value its own identity, as Apple's `id` (the value itself) is per configured widget.
    private let serial: Int

    @available(iOS 17.0, macOS 14.0, watchOS 10.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    public func widgetConfigurationIntent<Intent>(of intentType: Intent.Type = Intent.self) -> Intent? where Intent: WidgetConfigurationIntent {
        intent as? Intent
    }
}

@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
@available(tvOS, unavailable)
extension WidgetInfo: Identifiable, Hashable, Equatable {
    public var id: WidgetInfo { self }
    public typealias ID = WidgetInfo
    public static func == (lhs: WidgetInfo, rhs: WidgetInfo) -> Bool { lhs.serial == rhs.serial }
    public func hash(into hasher: inout Hasher) { hasher.combine(serial) }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
public protocol WidgetPushHandler {
    init()
    func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo])
}

/// Not `Sendable`, not `final`, no public init: as Apple declares it.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
@available(tvOS, unavailable)
public class WidgetCenter {
    nonisolated(unsafe) public static let shared = WidgetCenter()

    init() {}

    @preconcurrency public func getCurrentConfigurations(_ completion: @escaping @Sendable (Result<[WidgetInfo], any Error>) -> Void) {
        completion(Result { try AppleStubRuntime.system.withLock { try $0.widgetConfigurations() } })
    }

    @available(iOS 18.0, macOS 15.0, watchOS 11.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    public func currentConfigurations() async throws -> [WidgetInfo] {
        try AppleStubRuntime.system.withLock { try $0.widgetConfigurations() }
    }

    public func reloadTimelines(ofKind kind: String) { AppleStubRuntime.system.withLock { $0.reloads.append("widgets \(kind)") } }
    public func reloadAllTimelines() { AppleStubRuntime.system.withLock { $0.reloads.append("widgets *") } }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
extension WidgetCenter {
    public var currentPushInfo: WidgetPushInfo? {
        get async { AppleStubRuntime.system.withLock { $0.widgetToken.map(WidgetPushInfo.init(token:)) } }
    }
}

@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
@available(visionOS, unavailable)
public struct ControlPushInfo {
    public let token: Data
    init(token: Data) { self.token = token }
}

@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
@available(visionOS, unavailable)
public struct ControlInfo {
    public let kind: String
    public var pushInfo: ControlPushInfo?
    /// Stands for the control's intent (Apple: `configurationIntent(of:)`).
    let intent: (any Sendable)?
    let identity: String

    init(kind: String, pushInfo: ControlPushInfo?, intent: (any Sendable)?, identity: String) {
        self.kind = kind
        self.pushInfo = pushInfo
        self.intent = intent
        self.identity = identity
    }

    public func configurationIntent<Intent>(of intentType: Intent.Type = Intent.self) -> Intent? where Intent: ControlConfigurationIntent {
        intent as? Intent
    }
}

@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
@available(visionOS, unavailable)
extension ControlInfo: Identifiable, Hashable, Equatable {
    public var id: String { identity }
    public typealias ID = String
    public static func == (lhs: ControlInfo, rhs: ControlInfo) -> Bool { lhs.identity == rhs.identity }
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
@available(visionOS, unavailable)
public protocol ControlPushHandler {
    init()
    func pushTokensDidChange(controls: [ControlInfo])
}

/// Not `Sendable`, not `final`, no public init: as Apple declares it.
@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(tvOS, unavailable)
@available(visionOS, unavailable)
public class ControlCenter {
    nonisolated(unsafe) public static let shared = ControlCenter()

    init() {}

    public func currentControls() async throws -> [ControlInfo] {
        try AppleStubRuntime.system.withLock { try $0.controlInfos() }
    }

    public func reloadControls(ofKind kind: String) { AppleStubRuntime.system.withLock { $0.reloads.append("controls \(kind)") } }
    public func reloadAllControls() { AppleStubRuntime.system.withLock { $0.reloads.append("controls *") } }
}
#endif
