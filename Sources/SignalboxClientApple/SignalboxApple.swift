#if canImport(WidgetKit)
import WidgetKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if canImport(WidgetKit) || SIGNALBOX_APPLE_STUBS
import Foundation
import SignalboxAPI
import SignalboxClient
import Synchronization

/// The SDK in one process of the app (the app, the widget extension, the File Provider extension): each
/// calls `configure` at its entry point with the same app group, so they share one sync store and one
/// installation. Handlers the system creates with `init()` find it through `current`.
public final class SignalboxApple: Sendable {
    public struct Configuration: Sendable {
        /// The app group container, shared by the app and its extensions.
        public var appGroupDirectory: URL
        public var baseURL: URL
        public var appId: String
        /// Fetches a device JWT from the app's backend.
        public var credentials: DeviceCredentials.Fetch
        /// Per widget kind, the widget's configuration as JSON (from its intent); `{}` for kinds not listed.
        public var widgetConfigurations: [String: @Sendable (WidgetInfo) -> JSONValue] = [:]
        /// Per control kind, the control's configuration as JSON (from its intent); `{}` for kinds not listed.
        public var controlConfigurations: [String: @Sendable (ControlInfo) -> JSONValue] = [:]
        /// The File Provider domains registered with the PushKit token.
        public var fileProviderDomains: [FileProviderDomain] = []
        public var leaseSeconds = 600

        public init(appGroupDirectory: URL, baseURL: URL, appId: String, credentials: @escaping DeviceCredentials.Fetch) {
            self.appGroupDirectory = appGroupDirectory
            self.baseURL = baseURL
            self.appId = appId
            self.credentials = credentials
        }
    }

    public let configuration: Configuration
    public let queue: SyncQueue
    public let leases: EnumeratorLeases
    private static let shared = Mutex<SignalboxApple?>(nil)

    private init(_ configuration: Configuration) {
        self.configuration = configuration
        queue = SyncQueue(
            configuration: SyncQueue.Configuration(baseURL: configuration.baseURL, appId: configuration.appId),
            store: FileSyncStore(directory: configuration.appGroupDirectory.appendingPathComponent("Signalbox")),
            credentials: DeviceCredentials(fetch: configuration.credentials)
        )
        leases = EnumeratorLeases(queue: queue, leaseSeconds: configuration.leaseSeconds)
    }

    /// Sets up the SDK for this process; call once at the process's entry point.
    @discardableResult
    public static func configure(_ configuration: Configuration) -> SignalboxApple {
        let instance = SignalboxApple(configuration)
        shared.withLock { $0 = instance }
        return instance
    }

    /// The instance `configure` made in this process.
    public static var current: SignalboxApple? { shared.withLock { $0 } }

    /// The installation: who uses the app and which channels the backend allowed.
    public func setInstallation(userId: String?, channels: [String], environment: String) throws {
        try queue.set(.installation(InstallationRequest(userId: userId, channels: channels, environment: environment)))
    }

    /// Sends what is due; failures stay in the store (`queue.state().lastError`) and are retried later.
    @discardableResult
    public func sync() async -> SyncReport? { try? await queue.sync() }

    /// At launch and on foreground: reads the system's current widgets and controls and syncs them.
    public func reconcile() async throws {
        if #available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            if let info = await WidgetCenter.shared.currentPushInfo {
                try setWidgets(info, try await WidgetCenter.shared.currentConfigurations())
            }
        }
        try setControls(try await ControlCenter.shared.currentControls())
        await sync()
    }

    @available(iOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
    func setWidgets(_ info: WidgetPushInfo, _ widgets: [WidgetInfo]) throws {
        let list = widgets.map { widget in
            Widget(
                kind: widget.kind, family: String(describing: widget.family),
                configuration: configuration.widgetConfigurations[widget.kind]?(widget) ?? .object([:])
            )
        }
        try queue.set(.widgets(WidgetsRequest(pushToken: Self.hex(info.token), widgets: list)))
    }

    func setControls(_ controls: [ControlInfo]) throws {
        let list = controls.compactMap { control in
            control.pushInfo.map { push in
                Control(
                    kind: control.kind, configuration: configuration.controlConfigurations[control.kind]?(control) ?? .object([:]),
                    pushToken: Self.hex(push.token)
                )
            }
        }
        try queue.set(.controls(ControlsRequest(controls: list)))
    }

    private let renewing = Mutex(false)

    /// While this process lives (the File Provider extension is awake): renews leases at half their length and
    /// syncs what is due. Started by the first `LeasedEnumerator`; ends with the process.
    public func keepLeasesRenewed() {
        guard !renewing.withLock({ value in defer { value = true }; return value }) else { return }
        Task {
            let clock = SystemClock()
            while !Task.isCancelled {
                let renewal = (try? await leases.renewDue()) ?? nil
                let wake = await sync()?.nextWake
                let next = [renewal, wake].compactMap { $0 }.min() ?? clock.now.addingTimeInterval(60)
                try? await clock.sleep(until: max(next, clock.now.addingTimeInterval(1)))
            }
        }
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
#endif
