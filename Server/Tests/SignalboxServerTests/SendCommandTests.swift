import Foundation
import SignalboxTestSupport
import Testing

/// `signalbox send` refuses a push whose type's required fields are missing, naming the option, before it
/// reads the key or opens a connection (the key file given here does not exist, the port has no listener).
struct SendCommandTests {
    static let common = [
        "send", "--token", "00aa11bb", "--bundle-id", "com.example.app", "--team-id", "TEAM123456",
        "--key-id", "KEY1234567", "--key", "/nonexistent/AuthKey.p8", "--host", "127.0.0.1", "--port", "9",
    ]

    @Test(arguments: [
        (["--type", "fileprovider"], "--domain is required for --type fileprovider"),
        (["--type", "fileprovider", "--container", "NSFileProviderRootContainerItemIdentifier"], "--domain is required"),
        (["--type", "fileprovider", "--payload", #"{"container-identifier":"c"}"#], "lacks domain"),
        (["--type", "fileprovider", "--payload", #"{"domain":"d"}"#], "lacks container-identifier"),
        (["--type", "fileprovider", "--domain", "d", "--payload", #"{"domain":"d"}"#], "either --payload or --container/--domain"),
        (["--type", "widgets", "--domain", "d"], "apply to --type fileprovider only"),
        (["--type", "alert"], "--payload is required for --type alert"),
        (["--type", "alert", "--payload", #"{"aps":{}}"#], "lacks aps.alert"),
        (["--type", "liveactivity", "--payload", #"{"aps":{"event":"update"}}"#], "lacks aps.timestamp, aps.content-state"),
        (["--type", "controls", "--payload", "[1]"], "lacks payload"),
        (["--type", "background", "--payload", #"{"aps":{}}"#], "lacks aps.content-available"),
        (["--type", "voip"], "unknown push type 'voip'"),
        (["--type", "widgets", "--priority", "7"], "--priority must be 10, 5 or 1"),
    ])
    func refusesBeforeSending(options: [String], message: String) async throws {
        let process = try ChildProcess(Self.common + options)
        defer { process.kill() }
        let status = try await process.waitForExit()
        #expect(status != nil && status != 0)
        #expect(process.printed.contains(message), "\(process.printed)")
        #expect(!process.printed.contains("key file"), "validated before the key is read")
    }

    /// With every required field present the command gets past validation to reading the key.
    @Test func aCompleteFileProviderPushReachesTheKey() async throws {
        let process = try ChildProcess(Self.common + ["--type", "fileprovider", "--domain", "com.example.domain"])
        defer { process.kill() }
        let status = try await process.waitForExit()
        #expect(status != nil && status != 0)
        #expect(process.printed.contains("cannot read the key file /nonexistent/AuthKey.p8"), "\(process.printed)")
    }
}
