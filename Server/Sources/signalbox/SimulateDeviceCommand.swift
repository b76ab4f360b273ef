#if os(Linux)
import ArgumentParser
import Foundation
import SignalboxAPI
import SignalboxClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `signalbox simulate-device`: plays phones running SignalboxClientApple (its handlers, delegates and enumerators,
/// driven through the Linux stubs' runtime) against a running Signalbox, reads the pushes the APNs simulator
/// accepted for their tokens, and prints what each would reload. Linux only: on Apple platforms the glue links the
/// real frameworks, which a command-line process cannot drive.
struct SimulateDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-device",
        abstract: "Play app installations (widgets, controls, File Provider) from a script and print what each push reloads.",
        discussion: """
            The script has one step per line (see DeviceScript.swift): installation, widgets, controls, file-provider,
            open/close DOMAIN CONTAINER, extension-exits, token-invalidated, reconcile, sign-out, offline, online,
            sync, wait SECONDS, say TEXT, and
            event JSON (posted with --server-key, as the app's backend would). `@name` before a step picks the installation.
            """
    )

    @Argument(help: "The script file ('-' for standard input).")
    var script: String
    @Option(help: "Signalbox URL.")
    var url = "http://127.0.0.1:8080"
    @Option(help: "The app id.")
    var app: String
    @Option(help: "The app's device secret: the simulator mints device JWTs with it, as the app's backend would.")
    var deviceSecret: String
    @Option(help: "The app's server key, for `event` steps.")
    var serverKey: String?
    @Option(help: "The APNs simulator's admin URL, to read the pushes for this device's tokens.")
    var simulatorAdmin = "http://127.0.0.1:2198"
    @Option(help: "The directory holding each installation's sync store (a temporary one when absent).")
    var store: String?
    @Option(help: "Enumerator lease length in seconds.")
    var leaseSeconds = 600

    func run() async throws {
        let text = script == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            : try String(contentsOfFile: script, encoding: .utf8)
        let steps = try DeviceStep.parse(text, defaultInstallation: "device")
        guard let base = URL(string: url) else { throw ValidationError("bad --url") }
        let root = URL(fileURLWithPath: store ?? FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-device-\(UUID().uuidString)").path)
        var player = DevicePlayer(
            base: base, appId: app, deviceSecret: deviceSecret, serverKey: serverKey, simulatorAdmin: simulatorAdmin,
            storeRoot: root, leaseSeconds: leaseSeconds
        )
        try await player.start()
        for step in steps { try await player.perform(step) }
        try await player.settle()
    }
}
#else
import ArgumentParser

/// `signalbox simulate-device` drives SignalboxClientApple through the Linux stubs' runtime; elsewhere it only says so.
struct SimulateDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-device", abstract: "Play app installations from a script (Linux only: it drives the SDK's Linux stubs)."
    )

    func run() async throws { throw ValidationError("simulate-device runs on Linux (e.g. in a container): it drives the SDK through its Linux stubs") }
}
#endif
