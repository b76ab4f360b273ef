#if os(Linux)
import Foundation
import Synchronization

/// The stubs' test runtime: the system's side of WidgetKit and PushKit in one process, set by a test or by
/// `signalbox simulate-device`. Not part of Apple's SDK: on Apple platforms the system itself creates these values
/// and calls the handlers and delegates; here the caller does, through this type only.
///
/// It holds what `WidgetCenter.shared`, `ControlCenter.shared` and `PKPushRegistry.pushToken(for:)` answer, makes the
/// values Apple gives no initializer for (`widget(kind:family:)`, `control(kind:pushToken:)`, …), and plays the
/// system's calls to PushKit delegates (`updatePushToken`, `invalidatePushToken`). State is per process.
public enum AppleStubRuntime {
    /// A control as the system keeps it.
    struct Control: Sendable {
        var kind: String
        var token: Data?
        var intent: (any Sendable)?
        var identity: String
    }

    struct System: Sendable {
        var widgetToken: Data?
        var widgets: [WidgetInfo] = []
        var controls: [Control] = []
        var pushTokens: [String: Data] = [:]
        /// `currentConfigurations()` / `currentControls()` throw this when set.
        var failure: String?
        /// `reloadTimelines(ofKind:)` and the like, in order.
        var reloads: [String] = []

        func widgetConfigurations() throws -> [WidgetInfo] {
            if let failure { throw StubFailure(message: failure) }
            return widgets
        }

        func controlInfos() throws -> [ControlInfo] {
            if let failure { throw StubFailure(message: failure) }
            return controls.map { ControlInfo(kind: $0.kind, pushInfo: $0.token.map(ControlPushInfo.init(token:)), intent: $0.intent, identity: $0.identity) }
        }
    }

    /// What `currentConfigurations()` or `currentControls()` threw, as set by `failNextReads`.
    public struct StubFailure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// A registry the runtime may call, held weakly as the system holds no app objects alive. `@unchecked`: the
    /// weak reference is only read under `registries`' lock, and the registry is used on the caller's thread, as
    /// the system's calls are in a test.
    private final class WeakRegistry: @unchecked Sendable {
        weak var registry: PKPushRegistry?
        init(_ registry: PKPushRegistry) { self.registry = registry }
    }

    static let system = Mutex(System())
    private static let registries = Mutex<[WeakRegistry]>([])
    private static let serials = Atomic<Int>(0)

    static func nextSerial() -> Int { serials.add(1, ordering: .relaxed).newValue }

    // MARK: Values Apple's SDK gives no initializer for

    public static func widget(kind: String, family: WidgetFamily, intent: (any WidgetConfigurationIntent)? = nil) -> WidgetInfo {
        WidgetInfo(kind: kind, family: family, intent: intent)
    }

    public static func widgetPushInfo(token: Data) -> WidgetPushInfo { WidgetPushInfo(token: token) }

    /// A control; its `id` is `kind` plus a counter unless given.
    public static func control(kind: String, pushToken: Data?, intent: (any ControlConfigurationIntent)? = nil, id: String? = nil) -> ControlInfo {
        ControlInfo(kind: kind, pushInfo: pushToken.map(ControlPushInfo.init(token:)), intent: intent, identity: id ?? "\(kind)#\(nextSerial())")
    }

    // MARK: What WidgetCenter and ControlCenter answer

    /// The WidgetKit push token (`WidgetCenter.shared.currentPushInfo`) and the configured widgets.
    public static func setWidgets(token: Data?, _ widgets: [WidgetInfo]) {
        system.withLock { state in
            state.widgetToken = token
            state.widgets = widgets
        }
    }

    /// The user's controls, as `ControlCenter.shared.currentControls()` returns them.
    public static func setControls(_ controls: [ControlInfo]) {
        let kept = controls.map { Control(kind: $0.kind, token: $0.pushInfo?.token, intent: $0.intent, identity: $0.identity) }
        system.withLock { $0.controls = kept }
    }

    /// Makes `currentConfigurations()` and `currentControls()` throw (`nil`: answer again).
    public static func failReads(_ message: String?) { system.withLock { $0.failure = message } }

    /// The `reloadTimelines`/`reloadControls` calls made so far ("widgets KIND", "controls *", …).
    public static var reloads: [String] { system.withLock { $0.reloads } }

    // MARK: PushKit

    static func track(_ registry: PKPushRegistry) {
        registries.withLock { list in
            list.removeAll { $0.registry == nil }
            list.append(WeakRegistry(registry))
        }
    }

    /// A registry asked for tokens: it is told the ones the system already has, as PushKit does.
    static func registryWantsTokens(_ registry: PKPushRegistry) {
        for type in registry.desiredPushTypes ?? [] {
            guard let token = system.withLock({ $0.pushTokens[type.rawValue] }) else { continue }
            registry.delegate?.pushRegistry(registry, didUpdate: PKPushCredentials(type: type, token: token), for: type)
        }
    }

    /// The system has a (new) token of `type`: every registry that asked for it is told, now, on this thread.
    public static func updatePushToken(_ token: Data, for type: PKPushType) {
        system.withLock { $0.pushTokens[type.rawValue] = token }
        for registry in interested(in: type) {
            registry.delegate?.pushRegistry(registry, didUpdate: PKPushCredentials(type: type, token: token), for: type)
        }
    }

    /// As `updatePushToken(_:for:)`, told to `registry` alone: the system telling one process (a process that plays
    /// several devices keeps one registry per device).
    public static func updatePushToken(_ token: Data, for type: PKPushType, registry: PKPushRegistry) {
        registry.delegate?.pushRegistry(registry, didUpdate: PKPushCredentials(type: type, token: token), for: type)
    }

    /// As `invalidatePushToken(for:)`, told to `registry` alone.
    public static func invalidatePushToken(for type: PKPushType, registry: PKPushRegistry) {
        registry.delegate?.pushRegistry(registry, didInvalidatePushTokenFor: type)
    }

    /// The system dropped the token of `type` (`pushRegistry(_:didInvalidatePushTokenFor:)`).
    public static func invalidatePushToken(for type: PKPushType) {
        system.withLock { $0.pushTokens[type.rawValue] = nil }
        for registry in interested(in: type) { registry.delegate?.pushRegistry(registry, didInvalidatePushTokenFor: type) }
    }

    private static func interested(in type: PKPushType) -> [PKPushRegistry] {
        registries.withLock { list in list.compactMap(\.registry) }.filter { $0.desiredPushTypes?.contains(type) == true }
    }

    /// Forgets every widget, control, token and reload (between tests or simulated phones).
    public static func reset() { system.withLock { $0 = System() } }
}
#endif
