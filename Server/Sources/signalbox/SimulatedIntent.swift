#if os(Linux)
import AppleFrameworkStubs
import SignalboxAPI

/// A widget's or control's intent in the simulator: the configuration the script gave it.
struct SimulatedIntent: WidgetConfigurationIntent, ControlConfigurationIntent {
    var values: JSONValue
}
#endif
