import Foundation
import SignalboxAPI
import SignalboxClient

extension SignalboxApple {
    /// What every process of the app passes to `configure`; the same in the app and its extensions.
    public struct Configuration: Sendable {
        /// The app group container, shared by the app and its extensions.
        public var appGroupDirectory: URL
        public var baseURL: URL
        public var appId: String
        /// Fetches a device JWT from the app's backend for the signed-in user.
        public var credentials: DeviceCredentials.Fetch
        /// The File Provider domains registered with the PushKit token; `replicated` must say which kind of
        /// extension serves the domain (`NSFileProviderReplicatedExtension`: true).
        public var fileProviderDomains: [FileProviderDomain] = []
        public var leaseSeconds = 600
        /// `sandbox` or `production`; `nil` (the default): the environment of this build's provisioning profile.
        public var environment: String?
        /// How requests reach Signalbox (URLSession by default).
        public var transport: any HTTPTransport = URLSessionTransport()
        /// Per widget kind, the widget's configuration as JSON; set with `configureWidgets(ofKind:_:)`. Typed
        /// `Any` because `WidgetInfo` needs visionOS 26 and a stored property cannot be newer than its type.
        var widgetConfigurations: [String: @Sendable (Any) -> JSONValue] = [:]
        /// Per control kind, the control's configuration as JSON; set with `configureControls(ofKind:_:)`.
        var controlConfigurations: [String: @Sendable (Any) -> JSONValue] = [:]
        /// For kinds without their own: `configureAllWidgets(_:)` / `configureAllControls(_:)`.
        var anyWidgetConfiguration: (@Sendable (Any) -> JSONValue)?
        var anyControlConfiguration: (@Sendable (Any) -> JSONValue)?

        func widgetConfiguration(kind: String, _ widget: Any) -> JSONValue {
            (widgetConfigurations[kind] ?? anyWidgetConfiguration)?(widget) ?? .object([:])
        }

        func controlConfiguration(kind: String, _ control: Any) -> JSONValue {
            (controlConfigurations[kind] ?? anyControlConfiguration)?(control) ?? .object([:])
        }

        public init(appGroupDirectory: URL, baseURL: URL, appId: String, credentials: @escaping DeviceCredentials.Fetch) {
            self.appGroupDirectory = appGroupDirectory
            self.baseURL = baseURL
            self.appId = appId
            self.credentials = credentials
        }
    }
}
