#if os(Linux)
import AppleFrameworkStubs
import Foundation
import SignalboxAPI
import SignalboxClientTesting
import Testing
@testable import SignalboxClient
@testable import SignalboxClientApple

/// The glue run over the stubs' test runtime: the "system" (`AppleStubRuntime`) calls the handlers and delegates
/// and answers WidgetCenter and ControlCenter; what reaches Signalbox is read from an in-memory transport.
@Suite(.serialized) struct AppleGlueTests {
    struct DoorIntent: ControlConfigurationIntent { var door: String }

    /// A configured SignalboxApple over a fresh app group; `body` runs with it, then the group is removed.
    static func withSignalbox(
        domains: [FileProviderDomain] = [], resetRuntime: Bool = true, _ body: (SignalboxApple, MemoryTransport) async throws -> Void
    ) async throws {
        if resetRuntime { AppleStubRuntime.reset() }
        let group = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-group-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: group) }
        let transport = MemoryTransport()
        var configuration = SignalboxApple.Configuration(
            appGroupDirectory: group, baseURL: URL(string: "http://signalbox.test")!, appId: "app-1",
            credentials: { DeviceCredential(token: "jwt") }
        )
        configuration.transport = transport
        configuration.environment = "sandbox"
        configuration.fileProviderDomains = domains
        configuration.configureControls(ofKind: "com.example.garage.door") { control in
            .object(["door": .string(control.configurationIntent(of: DoorIntent.self)?.door ?? "")])
        }
        configuration.configureWidgets(ofKind: "Caffeine") { _ in .object(["size": .number(2)]) }
        try await body(SignalboxApple.configure(configuration), transport)
    }

    /// Waits until `transport` has sent `expected` (the handlers sync in tasks of their own), 120 s at most (a bound
    /// for a hang: a loaded run may take tens of seconds).
    static func waitUntilSent(_ transport: MemoryTransport, _ expected: [String], _ signalbox: SignalboxApple) async throws {
        let deadline = Date().addingTimeInterval(120)
        while transport.sent != expected, Date() < deadline {
            await signalbox.sync()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(transport.sent == expected)
    }

    @Test func aTimelineProviderReportsItsReloadAndTheReceiptIsSentAfterTheInstallation() async throws {
        try await Self.withSignalbox { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: [])
            SignalboxApple.reloaded(kind: "Caffeine", pushType: .widgets)
            try await Self.waitUntilSent(transport, ["PUT installation", "POST reloads"], signalbox)
            let sent = try SignalboxJSON.makeDecoder().decode(ReloadsRequest.self, from: try #require(transport.requests.last?.body))
            #expect(sent.reloads.map(\.kind) == ["Caffeine"] && sent.reloads.map(\.pushType) == ["widgets"])
        }
    }

    @Test func theControlHandlerRegistersEveryControlWithAPushTokenWithItsConfiguration() async throws {
        try await Self.withSignalbox { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: [])
            SignalboxControlPushHandler().pushTokensDidChange(controls: [
                AppleStubRuntime.control(kind: "com.example.garage.door", pushToken: Data([0xd0, 0xe5, 0x00, 0x01]), intent: DoorIntent(door: "north")),
                AppleStubRuntime.control(kind: "com.example.light", pushToken: Data([0xab])),
                AppleStubRuntime.control(kind: "com.example.unpushed", pushToken: nil),
            ])
            try await Self.waitUntilSent(transport, ["PUT installation", "PUT controls"], signalbox)
            let sent = try JSONDecoder().decode(ControlsRequest.self, from: try #require(transport.requests[1].body))
            #expect(sent.controls == [
                Control(kind: "com.example.garage.door", configuration: .object(["door": .string("north")]), pushToken: "d0e50001"),
                Control(kind: "com.example.light", configuration: .object([:]), pushToken: "ab"),
            ])
        }
    }

    @Test func theWidgetHandlerRegistersTheTokenAndEveryWidgetByWidgetKitsFamilyName() async throws {
        try await Self.withSignalbox { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: [])
            SignalboxWidgetPushHandler().pushTokenDidChange(
                AppleStubRuntime.widgetPushInfo(token: Data([0xc0, 0xff, 0xee])),
                widgets: [AppleStubRuntime.widget(kind: "Caffeine", family: .systemSmall), AppleStubRuntime.widget(kind: "Weather", family: .accessoryInline)]
            )
            try await Self.waitUntilSent(transport, ["PUT installation", "PUT widgets"], signalbox)
            guard case .widgets(let request) = try signalbox.queue.state().entries["widgets"]?.snapshot else {
                Issue.record("no widgets snapshot")
                return
            }
            #expect(request.pushToken == "c0ffee")
            #expect(request.widgets == [
                Widget(kind: "Caffeine", family: "systemSmall", configuration: .object(["size": .number(2)])),
                Widget(kind: "Weather", family: "accessoryInline"),
            ])
        }
        let families: [WidgetFamily] = [
            .systemSmall, .systemMedium, .systemLarge, .systemExtraLarge, .systemExtraLargePortrait, .accessoryCorner,
            .accessoryCircular, .accessoryRectangular, .accessoryInline,
        ]
        #expect(families.map(SignalboxApple.name(of:)) == [
            "systemSmall", "systemMedium", "systemLarge", "systemExtraLarge", "systemExtraLargePortrait", "accessoryCorner",
            "accessoryCircular", "accessoryRectangular", "accessoryInline",
        ])
        #expect(WidgetFamily.systemSmall.rawValue == 0, "WidgetKit's raw type is Int")
    }

    @Test func reconcileRegistersWhatWidgetCenterAndControlCenterHaveNow() async throws {
        try await Self.withSignalbox { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: ["home:42"])
            AppleStubRuntime.setWidgets(token: Data([0x01, 0x02]), [AppleStubRuntime.widget(kind: "Caffeine", family: .systemMedium)])
            AppleStubRuntime.setControls([AppleStubRuntime.control(kind: "com.example.garage.door", pushToken: Data([0x0d]), intent: DoorIntent(door: "south"))])
            try await signalbox.reconcile()
            #expect(transport.sent == ["PUT installation", "PUT widgets", "PUT controls"])
            #expect(MemoryTransport.json(transport.requests[0])["environment"] as? String == "sandbox")
            #expect(MemoryTransport.json(transport.requests[1])["pushToken"] as? String == "0102")

            // A read that fails throws; nothing registered is replaced by an empty list.
            AppleStubRuntime.failReads("WidgetKit is busy")
            await #expect(throws: AppleStubRuntime.StubFailure.self) { try await signalbox.reconcile() }
            await signalbox.sync()
            #expect(transport.sent.count == 3)
        }
    }

    @Test func aFileProviderTokenBeforeConfigureIsKeptAndAnInvalidatedOneIsDeleted() async throws {
        AppleStubRuntime.reset()
        SignalboxApple.unconfigure()
        AppleStubRuntime.updatePushToken(Data([0xf1, 0x1e]), for: .fileProvider)
        // The extension creates its delegate before configuring Signalbox: PushKit answers at once.
        let delegate = FileProviderPushDelegate()
        try await Self.withSignalbox(domains: [FileProviderDomain(id: "acct", replicated: false)], resetRuntime: false) { signalbox, transport in
            guard case .fileProvider(let request) = try signalbox.queue.state().entries["file-provider"]?.snapshot else {
                Issue.record("the early token was dropped")
                return
            }
            #expect(request.pushToken == "f11e")
            try signalbox.setInstallation(userId: "u1", channels: [])
            try await Self.waitUntilSent(transport, ["PUT installation", "PUT file-provider"], signalbox)

            AppleStubRuntime.invalidatePushToken(for: .fileProvider)
            try await Self.waitUntilSent(transport, ["PUT installation", "PUT file-provider", "DELETE file-provider"], signalbox)
            #expect(delegate.registry.pushToken(for: .fileProvider) == nil)
        }
    }

    @Test func aNonReplicatedExtensionLeasesEachOpenContainerUntilItsLastEnumeratorIsInvalidated() async throws {
        try await Self.withSignalbox(domains: [FileProviderDomain(id: "acct", replicated: false)]) { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: [])
            AppleStubRuntime.updatePushToken(Data([0xf0]), for: .fileProvider)
            let delegate = FileProviderPushDelegate()
            let enumerators = signalbox.enumerators(of: NSFileProviderExtension.self, domain: "acct")
            #expect(enumerators.opened(.workingSet) == nil, "the working set is always pushed")
            await enumerators.opened(NSFileProviderItemIdentifier("folder-1"))?.value
            #expect(enumerators.opened(NSFileProviderItemIdentifier("folder-1")) == nil, "a second enumerator shares the lease")
            try await Self.waitUntilSent(transport, ["PUT installation", "PUT file-provider", "PUT file-provider domains acct enumerators folder-1"], signalbox)
            #expect(enumerators.invalidated(NSFileProviderItemIdentifier("folder-1")) == nil, "one is still open")
            await enumerators.invalidated(NSFileProviderItemIdentifier("folder-1"))?.value
            try await Self.waitUntilSent(transport, [
                "PUT installation", "PUT file-provider", "PUT file-provider domains acct enumerators folder-1",
                "DELETE file-provider domains acct enumerators folder-1",
            ], signalbox)
            _ = delegate
        }
    }

    @Test func aReplicatedExtensionIsNeverLeased() async throws {
        final class Photos: NSObject, NSFileProviderReplicatedExtension {
            init(domain: NSFileProviderDomain) {}
            func invalidate() {}
            func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator {
                throw CocoaError(.featureUnsupported)
            }
        }
        try await Self.withSignalbox(domains: [FileProviderDomain(id: "photos", replicated: true)]) { signalbox, transport in
            let domain = NSFileProviderDomain(identifier: NSFileProviderDomainIdentifier("photos"), displayName: "Photos")
            let enumerators = signalbox.enumerators(of: Photos.self, domain: domain)
            #expect(enumerators.kind == .replicated)
            #expect(enumerators.opened(NSFileProviderItemIdentifier("folder-1")) == nil)
            #expect(enumerators.invalidated(NSFileProviderItemIdentifier("folder-1")) == nil)
            let keys = try signalbox.queue.state().entries.keys
            #expect(keys.filter { $0.hasPrefix("enumerator/") }.isEmpty)
            #expect(transport.sent.isEmpty)
        }
    }

    @Test func signOutDeletesTheInstallationAndTheNextUserGetsTheDevicesTokens() async throws {
        try await Self.withSignalbox { signalbox, transport in
            try signalbox.setInstallation(userId: "u1", channels: [])
            AppleStubRuntime.setControls([AppleStubRuntime.control(kind: "com.example.light", pushToken: Data([0xab]))])
            try await signalbox.reconcile()
            let first = try signalbox.queue.installationId()
            try await signalbox.signOut()
            #expect(transport.sent == ["PUT installation", "PUT widgets", "PUT controls", "DELETE installation"].filter { $0 != "PUT widgets" })
            #expect(try signalbox.queue.installationId() != first)
            try signalbox.setInstallation(userId: "u2", channels: [])
            await signalbox.sync()
            #expect(transport.sent.suffix(2) == ["PUT installation", "PUT controls"])
            let id = try signalbox.queue.installationId()
            #expect(transport.requests.last?.url.path.contains(id) == true)
        }
    }
}
#endif
