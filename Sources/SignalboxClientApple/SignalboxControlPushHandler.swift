#if canImport(WidgetKit)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if canImport(WidgetKit) || SIGNALBOX_APPLE_STUBS

/// `.pushHandler(SignalboxControlPushHandler.self)` on a control configuration: every call carries every
/// push-enabled control, so it replaces the registered set. Runs in the widget extension.
@available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
public struct SignalboxControlPushHandler: ControlPushHandler {
    public init() {}

    public func pushTokensDidChange(controls: [ControlInfo]) {
        guard let signalbox = SignalboxApple.current else { return }
        try? signalbox.setControls(controls)
        Task { await signalbox.sync() }
    }
}
#endif
