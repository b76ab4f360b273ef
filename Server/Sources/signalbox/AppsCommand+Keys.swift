import ArgumentParser
import Foundation
import SignalboxAPI

extension AppsCommand {
    /// `signalbox apps update-key`: a new `.p8`, key id or team for an app, without downtime.
    struct UpdateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update-key",
            abstract: "Replace an app's APNs key (for both environments, or one with --environment); pushes in flight finish with the old key.",
            discussion: "Check a new key first with `signalbox apps check APP --key … --key-id … --team-id …`."
        )
        @OptionGroup var connection: Connection
        @Argument var appId: String
        @Option var teamId: String
        @Option var keyId: String
        @Option(help: "Path to the .p8 private key.")
        var key: String
        @Option(help: "sandbox or production: the key serves that environment alone (default: both).")
        var environment: String?

        func run() async throws {
            let body = SigningKeyRequest(teamId: teamId, keyId: keyId, privateKey: try String(contentsOfFile: key, encoding: .utf8), environment: environment)
            AppsCommand.printJSON(try await connection.send("PUT", "/v1/apps/\(appId)/apns-key", body: try SignalboxJSON.makeEncoder().encode(body)))
        }
    }

    /// `signalbox apps check`: proves an app's keys, or a new key, against APNs with no device.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prove an app's APNs keys (or a new key given with --key, --key-id and --team-id) against APNs sandbox and production, with no device.",
            discussion: "Sends each environment a push to a token APNs never issued and explains its refusal (BadDeviceToken: key, team and topic are good). Exits 1 when a key is not good."
        )
        @OptionGroup var connection: Connection
        @Argument var appId: String
        @Option var teamId: String?
        @Option var keyId: String?
        @Option(help: "Path to a .p8 private key to check before it is stored.")
        var key: String?
        @Option(help: "sandbox or production (default: both).")
        var environment: String?

        func run() async throws {
            let pem = try key.map { try String(contentsOfFile: $0, encoding: .utf8) }
            let body = SigningKeyRequest(teamId: teamId, keyId: keyId, privateKey: pem, environment: environment)
            let data = try await connection.send("POST", "/v1/apps/\(appId)/apns-key/check", body: try SignalboxJSON.makeEncoder().encode(body))
            let answer = try SignalboxJSON.makeDecoder().decode(CredentialCheckResponse.self, from: data)
            for result in answer.results {
                let answered = result.status.map { "\($0) " } ?? ""
                print("\(result.environment): \(result.good ? "good" : "NOT GOOD") (key \(result.keyId), team \(result.teamId); APNs: \(answered)\(result.reason ?? "no reason"))")
                print("  \(result.explanation)")
            }
            if !answer.good { throw ExitCode(1) }
        }
    }
}
