import Foundation
import SignalboxAPI
import SignalboxClientTesting
@testable import SignalboxClient

struct Offline: Error {}

/// A queue over an in-memory store and transport, with jitter fixed at its lowest.
struct QueueFixture {
    let clock = ManualClock()
    let transport: MemoryTransport
    let store: any SyncStore
    let queue: SyncQueue
    let fetches = Box(0)

    init(
        transport: MemoryTransport = MemoryTransport(), store: any SyncStore = MemorySyncStore(installationId: "inst-1"),
        makeInstallationId: (@Sendable () -> String)? = nil
    ) {
        self.transport = transport
        self.store = store
        var configuration = SyncQueue.Configuration(baseURL: URL(string: "http://signalbox.test")!, appId: "app-1")
        configuration.backoff = Backoff(base: 2, cap: 600, random: { 0 })
        if let makeInstallationId { configuration.makeInstallationId = makeInstallationId }
        let counter = fetches
        let manual = self.clock
        let credentials = DeviceCredentials(clock: manual) {
            let count = counter.withLock { value in
                value += 1
                return value
            }
            return DeviceCredential(token: "jwt-\(count)", expiresAt: manual.now.addingTimeInterval(3600))
        }
        queue = SyncQueue(configuration: configuration, store: store, credentials: credentials, transport: transport, clock: manual)
    }

    static let installation = RegistrationSnapshot.installation(InstallationRequest(userId: "u1", channels: ["home:42"]))
    static func controls(_ tokens: String...) -> RegistrationSnapshot {
        .controls(ControlsRequest(controls: tokens.map { Control(kind: "door", configuration: .object(["door": .string("north")]), pushToken: $0) }))
    }
}
