import ArgumentParser
import Foundation
import SignalboxAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `signalbox apps …`: manage apps on a running server with the admin key.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create, list, delete apps, rotate their server keys and device secrets, replace and check their APNs keys on a running Signalbox.",
        subcommands: [Create.self, List.self, Delete.self, RotateKey.self, RotateDeviceSecret.self, UpdateKey.self, Check.self]
    )

    struct Connection: ParsableArguments {
        @Option(help: "Signalbox URL.")
        var url = "http://127.0.0.1:8080"
        @Option(help: "Admin key (default: $SIGNALBOX_ADMIN_KEY, else <data-dir>/admin.key).")
        var adminKey: String?
        @Option(help: "Data directory holding admin.key.")
        var dataDir = "./signalbox-data"

        /// Sends a request and returns the body, or throws with the server's error message.
        /// `bearer` replaces the admin key (an app's server key).
        func send(_ method: String, _ path: String, body: Data? = nil, bearer: String? = nil) async throws -> Data {
            guard let url = URL(string: url + path) else { throw ValidationError("bad --url") }
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.setValue("Bearer " + (try bearer ?? key()), forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else {
                let message = (try? SignalboxJSON.makeDecoder().decode(ErrorResponse.self, from: data)).map { "\($0.error.code): \($0.error.message)" }
                throw ValidationError("HTTP \(status) \(message ?? String(decoding: data, as: UTF8.self))")
            }
            return data
        }

        private func key() throws -> String {
            if let adminKey { return adminKey }
            if let key = ProcessInfo.processInfo.environment["SIGNALBOX_ADMIN_KEY"], !key.isEmpty { return key }
            guard let stored = FileManager.default.contents(atPath: dataDir + "/admin.key") else {
                throw ValidationError("no admin key: pass --admin-key, set SIGNALBOX_ADMIN_KEY or point --data-dir at the server's data")
            }
            return String(decoding: stored, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func printJSON(_ data: Data) {
        if let object = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        {
            print(String(decoding: pretty, as: UTF8.self))
        } else {
            print(String(decoding: data, as: UTF8.self))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app from its .p8 key; prints the server key and device secret once.")
        @OptionGroup var connection: Connection
        @Option var bundleId: String
        @Option var teamId: String
        @Option var keyId: String
        @Option(help: "Path to the .p8 private key.")
        var key: String
        @Option(help: "sandbox or production.")
        var environment = "production"
        @Option(help: "How far ahead a device JWT's exp may be, in seconds (default 86400).")
        var deviceTokenLifetime: Int?

        func run() async throws {
            let pem = try String(contentsOfFile: key, encoding: .utf8)
            let body = CreateAppRequest(
                bundleId: bundleId, teamId: teamId, keyId: keyId, privateKey: pem, environment: environment,
                deviceTokenLifetimeSeconds: deviceTokenLifetime
            )
            AppsCommand.printJSON(try await connection.send("POST", "/v1/apps", body: try SignalboxJSON.makeEncoder().encode(body)))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps (no secrets).")
        @OptionGroup var connection: Connection
        func run() async throws { AppsCommand.printJSON(try await connection.send("GET", "/v1/apps")) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an app with all its registrations.")
        @OptionGroup var connection: Connection
        @Argument var appId: String
        func run() async throws {
            _ = try await connection.send("DELETE", "/v1/apps/\(appId)")
            print("deleted \(appId)")
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate-key", abstract: "Issue a new server key; the old one stops working.")
        @OptionGroup var connection: Connection
        @Argument var appId: String
        func run() async throws { AppsCommand.printJSON(try await connection.send("POST", "/v1/apps/\(appId)/server-key")) }
    }

    struct RotateDeviceSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-device-secret",
            abstract: "Issue a new device secret (printed once); the old one works for --grace-seconds more (default 0)."
        )
        @OptionGroup var connection: Connection
        @Argument var appId: String
        @Option(help: "How long the previous secret stays valid, in seconds.")
        var graceSeconds = 0
        func run() async throws {
            let body = try SignalboxJSON.makeEncoder().encode(DeviceSecretRotation(graceSeconds: graceSeconds))
            AppsCommand.printJSON(try await connection.send("POST", "/v1/apps/\(appId)/device-secret", body: body))
        }
    }
}
