#if os(Linux)
import AppleFrameworkStubs
import Foundation
import SignalboxAPI
import Testing
@testable import SignalboxClient
@testable import SignalboxClientApple

/// The glue over the Linux stubs: what the system hands the handlers becomes the queue's snapshots.
@Suite(.serialized) struct AppleGlueTests {
    static func configure() -> SignalboxApple {
        var configuration = SignalboxApple.Configuration(
            appGroupDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-group-\(UUID().uuidString)"),
            baseURL: URL(string: "http://127.0.0.1:1")!, appId: "app-1", credentials: { DeviceCredential(token: "jwt") }
        )
        configuration.controlConfigurations["com.example.garage.door"] = { _ in .object(["door": .string("north")]) }
        configuration.widgetConfigurations["Caffeine"] = { _ in .object(["size": .number(2)]) }
        return SignalboxApple.configure(configuration)
    }

    @Test func theControlHandlerRegistersEveryControlWithAPushTokenWithItsConfiguration() throws {
        let signalbox = Self.configure()
        SignalboxControlPushHandler().pushTokensDidChange(controls: [
            ControlInfo(kind: "com.example.garage.door", pushInfo: ControlPushInfo(token: Data([0xd0, 0xe5, 0x00, 0x01]))),
            ControlInfo(kind: "com.example.light", pushInfo: ControlPushInfo(token: Data([0xab]))),
            ControlInfo(kind: "com.example.unpushed", pushInfo: nil),
        ])
        guard case .controls(let request) = try signalbox.queue.state().entries["controls"]?.snapshot else {
            Issue.record("no controls snapshot")
            return
        }
        #expect(request.controls == [
            Control(kind: "com.example.garage.door", configuration: .object(["door": .string("north")]), pushToken: "d0e50001"),
            Control(kind: "com.example.light", configuration: .object([:]), pushToken: "ab"),
        ])
    }

    @Test func theWidgetHandlerRegistersTheTokenAndEveryWidget() throws {
        let signalbox = Self.configure()
        SignalboxWidgetPushHandler().pushTokenDidChange(
            WidgetPushInfo(token: Data([0xc0, 0xff, 0xee])),
            widgets: [WidgetInfo(kind: "Caffeine", family: .systemSmall), WidgetInfo(kind: "Weather", family: .accessoryInline)]
        )
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
}
#endif
