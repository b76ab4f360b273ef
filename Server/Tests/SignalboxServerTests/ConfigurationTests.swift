import Foundation
import SignalboxTestSupport
import Testing

/// `signalbox serve` settings from flags, environment and a `--config` file, with one precedence
/// (flags > environment > file > defaults), and a start that stops on an unknown key or a bad value.
struct ConfigurationTests {
    static let adminKey = "sba_configuration-test-admin-key-0123456789"

    /// Where a started server put its database: which of the three sources won.
    @Test(arguments: [("file", "yaml"), ("environment", "json"), ("flag", "yaml")])
    func precedenceFlagsThenEnvironmentThenFile(winner: String, format: String) async throws {
        let directory = try makeTemporaryDirectory("config-precedence")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/signalbox." + format
        let fileText = format == "yaml"
            ? "port: 0\ndataDir: \(directory)/file\ndelivery:\n  maxInFlight: 64\n"
            : #"{"port": 0, "dataDir": "\#(directory)/file", "delivery": {"maxInFlight": 64}}"#
        try fileText.write(toFile: file, atomically: true, encoding: .utf8)
        var arguments = ["serve", "--config", file]
        var environment = ["SIGNALBOX_ADMIN_KEY": Self.adminKey]
        if winner != "file" { environment["SIGNALBOX_DATA_DIR"] = directory + "/environment" }
        if winner == "flag" { arguments += ["--data-dir", directory + "/flag"] }

        let server = try ChildProcess(arguments, environment: environment)
        defer { server.kill(SIGTERM) }
        _ = try await server.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#)
        for source in ["file", "environment", "flag"] {
            let exists = FileManager.default.fileExists(atPath: "\(directory)/\(source)/signalbox.sqlite")
            #expect(exists == (source == winner), "\(source): \(exists)")
        }
    }

    @Test(arguments: [
        ("yaml", "port: 0\ndelivery:\n  maxInFlite: 5\n", "unknown configuration key 'delivery.maxInFlite'"),
        ("json", #"{"port": 0, "adminkey": "x"}"#, "unknown configuration key 'adminkey'"),
        ("json", #"{"tls": 5}"#, "unknown configuration key 'tls'"),
        ("yaml", "port: [1\n", "is not valid YAML"),
        ("toml", "port = 0\n", "must end in .yaml, .yml or .json"),
    ])
    func unknownKeyOrBadFileStopsTheStart(format: String, text: String, message: String) async throws {
        let directory = try makeTemporaryDirectory("config-unknown")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try text.write(toFile: directory + "/signalbox." + format, atomically: true, encoding: .utf8)
        try await expectStartFails(
            ["serve", "--config", directory + "/signalbox." + format, "--data-dir", directory + "/data"], [:], message
        )
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "nothing was started")
    }

    @Test(arguments: [
        (["port": "\"eighty\""], [String: String](), [String](), "port (SIGNALBOX_PORT): must be an integer"),
        ([:], ["SIGNALBOX_MAX_IN_FLIGHT": "-1"], [], "delivery.maxInFlight (SIGNALBOX_MAX_IN_FLIGHT): must be from 1"),
        ([:], ["SIGNALBOX_CLAIM_LEASE_SECONDS": "30"], [], "delivery.claimLeaseSeconds (SIGNALBOX_CLAIM_LEASE_SECONDS): must be longer than the 30 s"),
        ([:], [:], ["--database", "postgres://signalbox:hunter2@127.0.0.1:1/db?connect_timeout=0"], "connect_timeout must be whole seconds"),
        ([:], ["SIGNALBOX_HEADER_TIMEOUT": "inf"], [], "connections.headerTimeout (SIGNALBOX_HEADER_TIMEOUT): must be positive"),
        ([:], ["SIGNALBOX_APNS_SIMULATOR": "maybe"], [], "apns.simulator (SIGNALBOX_APNS_SIMULATOR): must be true or false"),
        ([:], ["LOG_FORMAT": "xml"], [], "log.format (LOG_FORMAT): must be text or json"),
        ([:], ["LOG_LEVEL": "loud"], [], "log.level (LOG_LEVEL): must be one of"),
        (["quotas": "{maxInstallationsPerUser: 0}"], [:], [], "quotas.maxInstallationsPerUser (SIGNALBOX_MAX_INSTALLATIONS_PER_USER)"),
        ([:], [:], ["--database", "mysql://root:hunter2@db/signalbox"], "database (SIGNALBOX_DATABASE_URL): must be a postgres:// URL"),
        ([:], [:], ["--apns-port", "0"], "apns.port (SIGNALBOX_APNS_PORT): must be from 1 to 65535"),
        ([:], ["SIGNALBOX_METRICS_KEY": "hunter2"], [], "metricsKey (SIGNALBOX_METRICS_KEY): must be 16 to 4096 characters"),
        ([:], ["SIGNALBOX_APNS_PROXY": "https://ops:hunter2@proxy:3128"], [], "apns.proxy (SIGNALBOX_APNS_PROXY): must be an http:// URL"),
        (["apns": "{proxy: 'http://ops:hunter2@proxy:3128/path'}"], [:], [], "apns.proxy (SIGNALBOX_APNS_PROXY): must name only the proxy"),
    ])
    func badValueStopsTheStartNamingIt(
        file: [String: String], environment: [String: String], flags: [String], message: String
    ) async throws {
        let directory = try makeTemporaryDirectory("config-bad")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let yaml = file.map { "\($0.key): \($0.value)\n" }.joined()
        try yaml.write(toFile: directory + "/signalbox.yaml", atomically: true, encoding: .utf8)
        let output = try await expectStartFails(
            ["serve", "--config", directory + "/signalbox.yaml", "--data-dir", directory + "/data"]
                + (file["port"] == nil ? ["--port", "0"] : []) + flags,
            environment, message
        )
        #expect(!output.contains("hunter2"), "a bad secret is named, never shown")
    }

    /// `LOG_FORMAT=json`: every line the server prints while starting is one JSON object with the same fields.
    @Test func jsonLogLines() async throws {
        let directory = try makeTemporaryDirectory("config-json-log")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", directory],
            environment: ["SIGNALBOX_ADMIN_KEY": Self.adminKey, "LOG_FORMAT": "json"]
        )
        defer { server.kill(SIGTERM) }
        _ = try await server.waitFor(#""message":"Server started and listening on 127\.0\.0\.1:(\d+)""#)
        let lines = server.printed.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(Set(object.keys).isSuperset(of: ["time", "level", "label", "message", "source"]), "\(line)")
            let time = try #require(object["time"] as? String)
            #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
            #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(object["level"] as? String ?? ""))
            #expect(!line.contains(Self.adminKey))
        }
    }

    /// `SIGNALBOX_APNS_PROXY` is read and named at start-up by its host and port only, never its credentials.
    @Test func apnsProxyIsNamedWithoutItsCredentials() async throws {
        let directory = try makeTemporaryDirectory("config-proxy")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", directory],
            environment: ["SIGNALBOX_ADMIN_KEY": Self.adminKey, "SIGNALBOX_APNS_PROXY": "http://ops:hunter2@127.0.0.1:3128"]
        )
        defer { server.kill(SIGTERM) }
        _ = try await server.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#)
        #expect(server.printed.contains("apns.proxy=127.0.0.1:3128 (with credentials)"), "\(server.printed)")
        #expect(!server.printed.contains("hunter2"))
    }

    /// Runs `serve` expecting it to stop with an error containing `message`; returns what it printed.
    @discardableResult
    private func expectStartFails(_ arguments: [String], _ environment: [String: String], _ message: String) async throws -> String {
        let process = try ChildProcess(arguments, environment: ["SIGNALBOX_ADMIN_KEY": Self.adminKey].merging(environment) { $1 })
        defer { process.kill() }
        let status = try await process.waitForExit()
        #expect(status != nil && status != 0, "exit status \(String(describing: status))")
        #expect(process.printed.contains(message), "\(process.printed)")
        #expect(!process.printed.contains("Server started"))
        return process.printed
    }
}
