#if canImport(WidgetKit) && !os(tvOS)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if (canImport(WidgetKit) && !os(tvOS)) || SIGNALBOX_APPLE_STUBS

/// `.pushHandler(SignalboxWidgetPushHandler.self)` on a widget configuration: hands the WidgetKit token and the full
/// widget list to Signalbox. Runs in the widget extension, which must have called `configure`. WidgetKit calls it
/// synchronously; the sync runs in a task of its own.
@available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
@available(tvOS, unavailable)
public struct SignalboxWidgetPushHandler: WidgetPushHandler {
    public init() {}

    public func pushTokenDidChange(_ pushInfo: WidgetPushInfo, widgets: [WidgetInfo]) {
        guard let signalbox = SignalboxApple.current else { return }
        try? signalbox.setWidgets(pushInfo, widgets)
        Task { await signalbox.sync() }
    }
}
#endif
