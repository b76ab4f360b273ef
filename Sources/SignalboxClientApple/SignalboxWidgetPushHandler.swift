#if canImport(WidgetKit)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if canImport(WidgetKit) || SIGNALBOX_APPLE_STUBS

/// `.pushHandler(SignalboxWidgetPushHandler.self)` on a widget configuration: hands the WidgetKit token and
/// the full widget list to Signalbox. Runs in the widget extension, which must have called `configure`.
@available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
public struct SignalboxWidgetPushHandler: WidgetPushHandler {
    public init() {}

    public func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo]) {
        guard let signalbox = SignalboxApple.current else { return }
        try? signalbox.setWidgets(pushInfo, widgets)
        Task { await signalbox.sync() }
    }
}
#endif
