import Foundation
import SignalboxAPI
import SignalboxClient
import Synchronization

/// The SDK in one process of the app (the app, the widget extension, the File Provider extension): each calls
/// `configure` at its entry point with the same app group, so they share one sync store and one installation.
/// Handlers and delegates the system creates find it through `current`. Needs no Apple framework itself: the
/// WidgetKit, PushKit and File Provider parts are extensions compiled where those frameworks exist.
public final class SignalboxApple: Sendable {
    public let configuration: Configuration
    public let queue: SyncQueue
    public let leases: EnumeratorLeases
    private static let shared = Mutex<SignalboxApple?>(nil)
    /// A PushKit File Provider token that arrived before `configure` (the delegate may be created first).
    static let earlyFileProviderToken = Mutex<String?>(nil)
    private let renewing = Mutex(false)
    /// A send of reload receipts is scheduled (`reloaded`).
    let reloadSendScheduled = Mutex(false)

    private init(_ configuration: Configuration) {
        self.configuration = configuration
        queue = SyncQueue(
            configuration: SyncQueue.Configuration(baseURL: configuration.baseURL, appId: configuration.appId),
            store: FileSyncStore(directory: configuration.appGroupDirectory.appendingPathComponent("Signalbox")),
            credentials: DeviceCredentials(fetch: configuration.credentials), transport: configuration.transport
        )
        leases = EnumeratorLeases(queue: queue, leaseSeconds: configuration.leaseSeconds)
    }

    /// Sets up the SDK for this process; call once at the process's entry point. A File Provider token PushKit
    /// delivered before this call is registered now.
    @discardableResult
    public static func configure(_ configuration: Configuration) -> SignalboxApple {
        let instance = SignalboxApple(configuration)
        shared.withLock { $0 = instance }
        if let token = earlyFileProviderToken.withLock({ $0.take() }) { try? instance.setFileProviderToken(token) }
        return instance
    }

    /// Makes this instance the one handlers and delegates find through `current`, as `configure` does. For a
    /// process that plays several devices in turn (`signalbox simulate-device`); an app never needs it.
    public func makeCurrent() { Self.shared.withLock { $0 = self } }

    /// Forgets the configured instance, as in a process that has not called `configure` yet (tests).
    static func unconfigure() { shared.withLock { $0 = nil } }

    /// The instance `configure` made in this process.
    public static var current: SignalboxApple? { shared.withLock { $0 } }

    /// The installation: who uses the app and which channels the backend allowed. The APNs environment is
    /// `configuration.environment`, or the one this build's provisioning profile names (`APNsEnvironment.ofThisBuild`).
    public func setInstallation(userId: String?, channels: [String]) throws {
        let environment = configuration.environment ?? APNsEnvironment.ofThisBuild().rawValue
        try queue.set(.installation(InstallationRequest(userId: userId, channels: channels, environment: environment)))
    }

    /// Sends what is due; failures stay in the store (`queue.state().lastError`) and are retried later.
    @discardableResult
    public func sync() async -> SyncReport? { try? await queue.sync() }

    /// The user signs out: the installation is deleted on the server with their device JWT and the device continues
    /// under a new installation id, its tokens registered again once the next user's `setInstallation` runs. Call
    /// it before the app forgets the user's session (the backend must still mint their JWT). Throws, changing
    /// nothing, when the server could not be told; see `SyncQueue.signOut()`.
    public func signOut() async throws {
        try await queue.signOut()
        await sync()
    }

    /// Registers the PushKit File Provider token with the configured domains.
    func setFileProviderToken(_ token: String) throws {
        try queue.set(.fileProvider(FileProviderRequest(pushToken: token, domains: configuration.fileProviderDomains)))
    }

    /// The system invalidated the File Provider token: its registration is removed from the server.
    func removeFileProviderToken() throws { try queue.set(.fileProviderGone) }

    /// While this process lives (the File Provider extension is awake): renews leases at half their length and
    /// syncs what is due. Started by the first leased enumerator; ends with the process.
    func keepLeasesRenewed() {
        guard !renewing.withLock({ value in defer { value = true }; return value }) else { return }
        // Holds the instance only while renewing: once the process lets it go, the loop ends at its next wake.
        Task { [weak self] in
            let clock = SystemClock()
            while !Task.isCancelled, let signalbox = self {
                let renewal = (try? await signalbox.leases.renewDue()) ?? nil
                let wake = await signalbox.sync()?.nextWake
                let next = [renewal, wake].compactMap { $0 }.min() ?? clock.now.addingTimeInterval(60)
                try? await clock.sleep(until: max(next, clock.now.addingTimeInterval(1)))
            }
        }
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
