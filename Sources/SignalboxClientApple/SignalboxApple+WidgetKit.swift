#if canImport(WidgetKit) && !os(tvOS)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if (canImport(WidgetKit) && !os(tvOS)) || SIGNALBOX_APPLE_STUBS
import Foundation
import SignalboxAPI

// WidgetKit is unavailable on tvOS; widgets need visionOS 26 there, controls iOS 18 / macOS 26 / watchOS 26 and
// not visionOS (docs/apple-symbols.md).

extension SignalboxApple.Configuration {
    /// The configuration registered for widgets of `kind` (the user's intent values events filter on); `{}` for
    /// kinds without one.
    @available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    public mutating func configureWidgets(ofKind kind: String, _ body: @escaping @Sendable (WidgetInfo) -> JSONValue) {
        widgetConfigurations[kind] = { widget in (widget as? WidgetInfo).map(body) ?? .object([:]) }
    }

    /// The configuration registered for widgets of every kind without one of its own.
    @available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    public mutating func configureAllWidgets(_ body: @escaping @Sendable (WidgetInfo) -> JSONValue) {
        anyWidgetConfiguration = { widget in (widget as? WidgetInfo).map(body) ?? .object([:]) }
    }

    /// The configuration registered for controls of every kind without one of its own.
    @available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
    @available(visionOS, unavailable)
    @available(tvOS, unavailable)
    public mutating func configureAllControls(_ body: @escaping @Sendable (ControlInfo) -> JSONValue) {
        anyControlConfiguration = { control in (control as? ControlInfo).map(body) ?? .object([:]) }
    }

    /// The configuration registered for controls of `kind`; `{}` for kinds without one.
    @available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
    @available(visionOS, unavailable)
    @available(tvOS, unavailable)
    public mutating func configureControls(ofKind kind: String, _ body: @escaping @Sendable (ControlInfo) -> JSONValue) {
        controlConfigurations[kind] = { control in (control as? ControlInfo).map(body) ?? .object([:]) }
    }
}

extension SignalboxApple {
    /// At launch and on foreground: reads the system's current widgets and controls, replaces their
    /// registrations, and syncs. Throws what WidgetKit threw; what was read before the throw is kept.
    public func reconcile() async throws {
        if #available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            if let info = await WidgetCenter.shared.currentPushInfo {
                try setWidgets(info, try await WidgetCenter.shared.currentConfigurations())
            }
        }
        #if !os(visionOS)
        if #available(iOS 18.0, macOS 26.0, watchOS 26.0, *) {
            try setControls(try await ControlCenter.shared.currentControls())
        }
        #endif
        await sync()
    }

    @available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    func setWidgets(_ info: WidgetPushInfo, _ widgets: [WidgetInfo]) throws {
        let list = widgets.map { widget in
            Widget(
                kind: widget.kind, family: Self.name(of: widget.family),
                configuration: configuration.widgetConfiguration(kind: widget.kind, widget)
            )
        }
        try queue.set(.widgets(WidgetsRequest(pushToken: Self.hex(info.token), widgets: list)))
    }

    @available(iOS 18.0, macOS 26.0, watchOS 26.0, *)
    @available(visionOS, unavailable)
    @available(tvOS, unavailable)
    func setControls(_ controls: [ControlInfo]) throws {
        let list = controls.compactMap { control in
            control.pushInfo.map { push in
                Control(
                    kind: control.kind, configuration: configuration.controlConfiguration(kind: control.kind, control),
                    pushToken: Self.hex(push.token)
                )
            }
        }
        try queue.set(.controls(ControlsRequest(controls: list)))
    }

    /// The family as WidgetKit names the case (`systemSmall`), which event targets filter on. Spelled out rather
    /// than taken from `description`, whose text Apple does not document; each case where it is available.
    @available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
    @available(tvOS, unavailable)
    static func name(of family: WidgetFamily) -> String {
        switch family {
        #if !os(watchOS)
        case .systemSmall: "systemSmall"
        case .systemMedium: "systemMedium"
        case .systemLarge: "systemLarge"
        case .systemExtraLarge: "systemExtraLarge"
        #endif
        #if os(visionOS) || SIGNALBOX_APPLE_STUBS
        case .systemExtraLargePortrait: "systemExtraLargePortrait"
        #endif
        #if os(watchOS) || SIGNALBOX_APPLE_STUBS
        case .accessoryCorner: "accessoryCorner"
        #endif
        #if os(iOS) || os(watchOS) || SIGNALBOX_APPLE_STUBS
        case .accessoryCircular: "accessoryCircular"
        case .accessoryRectangular: "accessoryRectangular"
        case .accessoryInline: "accessoryInline"
        #endif
        #if !SIGNALBOX_APPLE_STUBS
        // WidgetFamily is a non-frozen enum of a resilient module on Apple platforms.
        @unknown default: "family\(family.rawValue)"
        #endif
        }
    }
}
#endif
