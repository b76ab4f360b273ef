#if os(Linux)
// Placeholders for the two AppIntents protocols WidgetKit's intent accessors name (`WidgetInfo.widgetConfigurationIntent(of:)`,
// `ControlInfo.configurationIntent(of:)`). Apple's protocols refine `AppIntent` and have requirements of their own; these have
// none, so an app's intent type written for Linux tests conforms to them with no body.
public protocol WidgetConfigurationIntent: Sendable {}
public protocol ControlConfigurationIntent: Sendable {}
#endif
