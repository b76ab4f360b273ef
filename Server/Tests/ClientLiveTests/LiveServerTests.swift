import Foundation
import SignalboxAPI
import SignalboxTestSupport
import Testing
@testable import SignalboxClient
import SignalboxClientTesting

/// SignalboxClient against a real `signalbox serve` child process.
@Suite(.serialized) struct LiveServerTests {
    /// A counting transport over URLSession that can be switched offline.
    final class Network: HTTPTransport {
        let online = Box(true)
        let sent = Box<[String]>([])
        // A request cut by a timeout on a loaded run would be sent again: the limit is for a hang only.
        private let transport = URLSessionTransport(timeout: 120)

        func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
            guard online.withLock({ $0 }) else { throw URLError(.notConnectedToInternet) }
            sent.withLock { $0.append(MemoryTransport.describe(request)) }
            return try await transport.send(request)
        }
    }

    static func queue(_ server: LiveServer, network: Network, clock: ManualClock, store: any SyncStore) -> SyncQueue {
        let credentials = server.credentials(userId: "u1", channels: ["home:42"])
        var configuration = SyncQueue.Configuration(baseURL: server.base, appId: server.appId)
        configuration.backoff = Backoff(random: { 0 })
        return SyncQueue(configuration: configuration, store: store, credentials: credentials, transport: network, clock: clock)
    }

    static func storeDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-client-store-\(UUID().uuidString)")
    }

    @Test func everyRegistrationReachesTheServerWithADeviceTokenAndIsNotSentTwice() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let network = Network()
        let clock = ManualClock()
        let queue = Self.queue(server, network: network, clock: clock, store: FileSyncStore(directory: Self.storeDirectory()))
        let leases = EnumeratorLeases(queue: queue, leaseSeconds: 600, clock: clock)
        try queue.set(.installation(InstallationRequest(userId: "u1", channels: ["home:42"], environment: "sandbox")))
        try queue.set(.widgets(WidgetsRequest(pushToken: "e0e0", widgets: [Widget(kind: "Caffeine", family: "systemSmall")])))
        try queue.set(.controls(ControlsRequest(controls: [Control(kind: "door", configuration: .object(["door": .string("north")]), pushToken: "d0d0")])))
        try queue.set(.fileProvider(FileProviderRequest(pushToken: "f0f0", domains: [FileProviderDomain(id: "acct-7", replicated: false)])))
        #expect(try await leases.open(domain: "acct-7", container: "folder-1"))
        let report = try await queue.sync()
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.acknowledged == ["installation", "widgets", "controls", "file-provider", "enumerator/acct-7/folder-1"])

        let (status, json) = try await server.installation(try queue.installationId())
        #expect(status == 200)
        #expect(json["userId"] as? String == "u1" && json["channels"] as? [String] == ["home:42"])
        #expect((json["widgets"] as? [String: Any])?["pushToken"] as? String == "e0e0")
        #expect((json["controls"] as? [[String: Any]])?.first?["pushToken"] as? String == "d0d0")
        let fileProvider = try #require(json["fileProvider"] as? [String: Any])
        #expect((fileProvider["enumerators"] as? [[String: Any]])?.first?["container"] as? String == "folder-1")

        try await queue.sync()
        #expect(network.sent.withLock { $0.count } == 5, "acknowledged snapshots are not sent again")
        try await leases.invalidate(domain: "acct-7", container: "folder-1")
        try await queue.sync()
        let after = try await server.installation(try queue.installationId()).json
        #expect(((after["fileProvider"] as? [String: Any])?["enumerators"] as? [Any])?.isEmpty == true)
    }

    @Test func offlineThenOnlineDeliversTheNewestSnapshotsAndAForgottenInstallationIsRegisteredAgain() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let network = Network()
        let clock = ManualClock()
        let queue = Self.queue(server, network: network, clock: clock, store: FileSyncStore(directory: Self.storeDirectory()))
        network.online.withLock { $0 = false }
        try queue.set(.installation(InstallationRequest(userId: "u1", channels: ["home:42"])))
        for token in ["01", "02", "03"] {
            try queue.set(.controls(ControlsRequest(controls: [Control(kind: "door", pushToken: token)])))
            let report = try await queue.sync()
            #expect(report.errors.map(\.code) == ["network"])
            clock.advance(3600)
        }
        #expect(try await server.installation(try queue.installationId()).status == 404)
        network.online.withLock { $0 = true }
        #expect(try await queue.sync().acknowledged == ["installation", "controls"])
        #expect(network.sent.withLock { $0 } == ["PUT installation", "PUT controls"], "only the newest controls snapshot")
        let controls = try await server.installation(try queue.installationId()).json["controls"] as? [[String: Any]]
        #expect(controls?.map { $0["pushToken"] as? String } == ["03"])

        // The server forgets the installation: the next registration's 404 sends it again first.
        #expect(try await server.delete(installation: try queue.installationId()) == 204)
        try queue.set(.controls(ControlsRequest(controls: [Control(kind: "door", pushToken: "04")])))
        #expect(try await queue.sync().acknowledged == ["installation", "controls"])
        let again = try await server.installation(try queue.installationId()).json["controls"] as? [[String: Any]]
        #expect(again?.map { $0["pushToken"] as? String } == ["04"])
    }

    @Test func twoProcessesShareOneStoreAndOneInstallation() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let root = Self.storeDirectory()
        let scripts = [
            "installation user=u1 channels=home:42\ncontrols door{door=north}:d001\nsync\n",
            "installation user=u1 channels=home:42\nwidgets e001 Caffeine/systemSmall\nsync\n",
        ]
        var devices: [ChildProcess] = []
        for (index, script) in scripts.enumerated() {
            let file = root.appendingPathComponent("script-\(index).txt")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try script.write(to: file, atomically: true, encoding: .utf8)
            devices.append(try ChildProcess([
                "simulate-device", file.path, "--url", server.base.absoluteString, "--app", server.appId,
                "--device-secret", server.deviceSecret, "--store", root.path, "--simulator-admin", "http://127.0.0.1:1",
            ]))
        }
        for device in devices {
            // A generous bound (`waitForExit`'s): a device that hangs fails the test instead of holding the run.
            let status = try await device.waitForExit()
            device.kill()
            #expect(status == 0, "\(device.printed)")
        }
        // Both processes played the installation named "device": one app group (SignalboxApple keeps its store in
        // the group's Signalbox folder), one store, one installation id.
        let store = FileSyncStore(directory: root.appendingPathComponent("device").appendingPathComponent("Signalbox"))
        let state = try store.update { $0 }
        #expect(Set(state.entries.keys) == ["installation", "controls", "widgets"])
        let acknowledged = state.entries.values.allSatisfy { $0.isAcknowledged }
        #expect(acknowledged)
        let json = try await server.installation(state.installationId).json
        #expect((json["controls"] as? [[String: Any]])?.first?["pushToken"] as? String == "d001")
        #expect((json["widgets"] as? [String: Any])?["pushToken"] as? String == "e001")
    }

    /// One phone over its users' lives against the real server: a user switch leaves no installation of the previous
    /// user holding the tokens, a sign-out deletes the installation, an invalidated File Provider token is removed.
    @Test func aUserSwitchASignOutAndAnInvalidatedTokenLeaveNothingBehindOnTheServer() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let user = Box("u1")
        let (appId, secret) = (server.appId, server.deviceSecret)
        let credentials = DeviceCredentials {
            DeviceCredential(token: LiveServer.deviceToken(userId: user.withLock { $0 }, channels: [], appId: appId, secret: secret))
        }
        let queue = SyncQueue(
            configuration: SyncQueue.Configuration(baseURL: server.base, appId: server.appId),
            store: FileSyncStore(directory: Self.storeDirectory()), credentials: credentials, transport: Network(), clock: ManualClock()
        )
        try queue.set(.installation(InstallationRequest(userId: "u1", environment: "sandbox")))
        try queue.set(.controls(ControlsRequest(controls: [Control(kind: "door", pushToken: "d0d0")])))
        try queue.set(.fileProvider(FileProviderRequest(pushToken: "f0f0", domains: [FileProviderDomain(id: "acct-7", replicated: false)])))
        #expect(try await queue.sync().errors.isEmpty)
        let first = try queue.installationId()

        // u2 signs in: u1's installation is deleted with u1's JWT, the tokens registered under u2's.
        user.withLock { $0 = "u2" }
        try queue.set(.installation(InstallationRequest(userId: "u2", environment: "sandbox")))
        let report = try await queue.sync()
        #expect(report.errors.isEmpty, "\(report.errors)")
        let second = try queue.installationId()
        #expect(second != first)
        #expect(try await server.installation(first).status == 404)
        let switched = try await server.installation(second).json
        #expect(switched["userId"] as? String == "u2")
        #expect((switched["controls"] as? [[String: Any]])?.first?["pushToken"] as? String == "d0d0")

        // The system invalidates the File Provider token: the registration goes.
        try queue.set(.fileProviderGone)
        #expect(try await queue.sync().errors.isEmpty)
        #expect((try await server.installation(second).json["fileProvider"] as? [String: Any]) == nil)

        // u2 signs out: the installation is deleted; nothing is registered until the next user.
        try await queue.signOut()
        #expect(try await server.installation(second).status == 404)
        #expect(try queue.installationId() != second)
        #expect(try await queue.sync().acknowledged.isEmpty)
    }
}
