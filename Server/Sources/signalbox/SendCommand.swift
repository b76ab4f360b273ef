import ArgumentParser
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2

/// `signalbox send`: one push to one token, printing APNs's answer and its classification.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one push to one device token and print APNs's answer.",
        discussion: """
            Example against the local simulator:
              signalbox send --type controls --token 00aa11bb --bundle-id com.example.app \\
                --team-id TEAM123456 --key-id KEY1234567 --key AuthKey.p8 \\
                --host 127.0.0.1 --port 2197 --ca simulator-ca.pem
            Each push type's required payload fields are checked before anything is sent: fileprovider needs
            --domain (and --container, default the working set); alert and liveactivity need --payload.
            """
    )

    @Option(help: "Push type: widgets, controls, fileprovider, alert, background, liveactivity.")
    var type: String = "controls"
    @Option(help: "Device token (hex).")
    var token: String
    @Option(help: "The app's bundle id (the push type's topic suffix is added).")
    var bundleId: String
    @Option(help: "Team ID (10 characters).")
    var teamId: String
    @Option(help: "Key ID of the .p8 key (10 characters).")
    var keyId: String
    @Option(help: "Path to the .p8 private key.")
    var key: String
    @Option(help: "sandbox or production.")
    var environment: String = "sandbox"
    @Option(help: "APNs host (default: Apple's host for the environment).")
    var host: String?
    @Option(help: "APNs port.")
    var port: Int = 443
    @Option(help: "PEM file of certificates to trust instead of the system store (e.g. the simulator's).")
    var ca: String?
    @Option(help: "JSON payload (default: the push type's own).")
    var payload: String?
    @Option(help: "File Provider container identifier (fileprovider pushes; default: the working set).")
    var container: String?
    @Option(help: "File Provider domain identifier (required for fileprovider pushes unless --payload has one).")
    var domain: String?
    @Option(help: "apns-priority: 10, 5 or 1 (default: the push type's).")
    var priority: Int?
    @Option(help: "apns-expiration in UNIX seconds; 0 = deliver now or never (default: the push type's).")
    var expiration: Int64?
    @Option(help: "apns-collapse-id.")
    var collapseId: String?
    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = 30

    func run() async throws {
        let push = try makePush()
        guard let environment = APNsEnvironment(rawValue: environment) else {
            throw ValidationError("environment must be sandbox or production")
        }
        let pem: String
        do { pem = try String(contentsOfFile: key, encoding: .utf8) } catch {
            throw ValidationError("cannot read the key file \(key)")
        }
        let signingKey: SigningKey
        do { signingKey = try SigningKey(pem: pem, keyId: keyId, teamId: teamId) } catch {
            throw ValidationError(error.message)
        }
        var configuration = HTTP2Transport.Configuration()
        if let host { configuration.endpoints[environment] = .init(host: host, port: port) }
        if let ca { configuration.trustRoots = .pemFile(ca) }
        configuration.resendsAfterLostAnswer = 0
        let transport = try HTTP2Transport(configuration: configuration, logger: Logger(label: "signalbox.send"))
        defer { Task { try? await transport.shutdown() } }
        let client = APNsClient(transport: transport, timeout: .seconds(timeout))
        do {
            let result = try await client.send(push, environment: environment, tokens: ProviderTokenManager(key: signingKey))
            print(Self.describe(result, push: push))
        } catch let error as APNsTransportError {
            print("no answer: \(error)")
            throw ExitCode(2)
        }
    }

    static func describe(_ result: APNsClient.Result, push: Push) -> String {
        var lines = [
            "status=\(result.response.status)",
            "apns-id=\(result.response.apnsId?.uuidString.lowercased() ?? "none")",
        ]
        if let unique = result.response.uniqueId { lines.append("apns-unique-id=\(unique)") }
        if let reason = result.response.reason { lines.append("reason=\(reason)") }
        if let timestamp = result.response.timestamp { lines.append("timestamp=\(timestamp.ISO8601Format())") }
        lines.append("outcome=\(result.outcome.name)")
        return lines.joined(separator: "\n")
    }
}
