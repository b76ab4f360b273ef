#if canImport(WidgetKit) && !os(tvOS)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if (canImport(WidgetKit) && !os(tvOS) && !os(visionOS)) || SIGNALBOX_APPLE_STUBS

/// `.pushHandler(SignalboxControlPushHandler.self)` on a control configuration: every call carries every
/// push-enabled control, so it replaces the registered set. Runs in the widget extension. Controls are iOS 18,
/// macOS 26 and watchOS 26; there are none on visionOS and tvOS.
@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
@available(visionOS, unavailable)
@available(tvOS, unavailable)
public struct SignalboxControlPushHandler: ControlPushHandler {
    public init() {}

    public func pushTokensDidChange(controls: [ControlInfo]) {
        guard let signalbox = SignalboxApple.current else { return }
        try? signalbox.setControls(controls)
        Task { await signalbox.sync() }
    }
}
#endif
