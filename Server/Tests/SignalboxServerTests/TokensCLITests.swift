import Crypto
import Foundation
import SignalboxTestSupport
import Testing

/// `signalbox tokens export` from one real `signalbox serve`, `tokens import` into another.
struct TokensCLITests {
    static let adminKey = "sba_tokens-cli-test-admin-key-0123456789"

    @Test func exportThenImportMovesEveryRegistration() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-tokens-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["SIGNALBOX_ADMIN_KEY": Self.adminKey]
        let source = try await ServerProcess.start(dataDirectory: directory + "/a", environment: environment)
        defer { source.process.kill(SIGTERM) }
        let target = try await ServerProcess.start(dataDirectory: directory + "/b", environment: environment)
        defer { target.process.kill(SIGTERM) }
        let (sourceAPI, targetAPI) = (source.api, target.api)
        let from = try await Self.createApp(sourceAPI)
        let to = try await Self.createApp(targetAPI)

        let count = 7
        for index in 0..<count {
            let path = "/v1/apps/\(from.appId)/installations/inst-\(index)"
            #expect(try await sourceAPI.call("PUT", path, key: from.serverKey, json: #"{"userId":"user-\#(index % 3)","channels":["home","c\#(index)"],"environment":"sandbox"}"#).status == 204)
            #expect(try await sourceAPI.call("PUT", path + "/widgets", key: from.serverKey, json: #"{"pushToken":"\#(Self.token(index, 1))","widgets":[{"kind":"Garage","family":"systemSmall","configuration":{"door":"\#(index)"}}]}"#).status == 204)
            if index.isMultiple(of: 2) {
                #expect(try await sourceAPI.call("PUT", path + "/controls", key: from.serverKey, json: #"{"controls":[{"kind":"door","configuration":{},"pushToken":"\#(Self.token(index, 2))"}]}"#).status == 204)
            }
            if index.isMultiple(of: 3) {
                #expect(try await sourceAPI.call("PUT", path + "/file-provider", key: from.serverKey, json: #"{"pushToken":"\#(Self.token(index, 3))","domains":[{"id":"acct-\#(index)","replicated":true}]}"#).status == 204)
            }
        }

        // The list endpoint pages in id order.
        let first = try #require(try await sourceAPI.call("GET", "/v1/apps/\(from.appId)/installations?limit=3", key: from.serverKey).json as? [String: Any])
        #expect(first["installationIds"] as? [String] == ["inst-0", "inst-1", "inst-2"])
        let next = try #require(first["next"] as? String)
        let last = try #require(try await sourceAPI.call("GET", "/v1/apps/\(from.appId)/installations?limit=4&after=\(next)", key: from.serverKey).json as? [String: Any])
        #expect(last["installationIds"] as? [String] == ["inst-3", "inst-4", "inst-5", "inst-6"])
        #expect(last["next"] == nil)
        #expect(try await sourceAPI.call("GET", "/v1/apps/\(from.appId)/installations?limit=0", key: from.serverKey).status == 400)
        #expect(try await sourceAPI.call("GET", "/v1/apps/\(from.appId)/installations", key: Self.adminKey).status == 403)

        let file = directory + "/tokens.ndjson"
        let export = try ChildProcess(["tokens", "export", from.appId, "--url", sourceAPI.base, "--server-key", from.serverKey, "--output", file])
        defer { export.kill() }
        #expect(try await export.waitForExit() == 0, "\(export.printed)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == count, "\(export.printed)")

        let importArguments = ["tokens", "import", to.appId, "--url", targetAPI.base, "--server-key", to.serverKey]
        // A bad line: named with its number and reason, nothing written.
        var bad = lines.map(String.init)
        bad.insert(#"{"installationId":"x","channels":[],"environment":"staging"}"#, at: 2)
        bad.insert("not json", at: 4)
        try (bad.joined(separator: "\n") + "\n").write(toFile: directory + "/bad.ndjson", atomically: true, encoding: .utf8)
        let refused = try ChildProcess(importArguments + [directory + "/bad.ndjson"])
        defer { refused.kill() }
        #expect(try await refused.waitForExit() == 1)
        #expect(refused.printed.contains("line 3: environment must be sandbox or production"), "\(refused.printed)")
        #expect(refused.printed.contains("line 5: not an installation: not valid JSON"), "\(refused.printed)")
        #expect(try await Self.installations(targetAPI, to).isEmpty)

        let dryRun = try ChildProcess(importArguments + [file, "--dry-run"])
        defer { dryRun.kill() }
        #expect(try await dryRun.waitForExit() == 0)
        #expect(dryRun.printed.contains("dry run: \(count) installation(s) would be written"), "\(dryRun.printed)")
        #expect(try await Self.installations(targetAPI, to).isEmpty)

        for run in 1...2 {
            let imported = try ChildProcess(importArguments + [file, "--progress-every", "3"])
            defer { imported.kill() }
            #expect(try await imported.waitForExit() == 0, "\(imported.printed)")
            #expect(imported.printed.contains("imported 6 of \(count)"), "progress on run \(run): \(imported.printed)")
            #expect(try await Self.installations(targetAPI, to) == Self.installations(sourceAPI, from), "run \(run)")
        }

        // --skip-invalid writes the good lines of a file with bad ones (here the same installations again).
        let skipping = try ChildProcess(importArguments + [directory + "/bad.ndjson", "--skip-invalid"])
        defer { skipping.kill() }
        #expect(try await skipping.waitForExit() == 0, "\(skipping.printed)")
        #expect(skipping.printed.contains("line 3: environment must be sandbox or production"))
        #expect(skipping.printed.contains("imported \(count) installation(s), skipped 2 bad line(s)"), "\(skipping.printed)")
        #expect(try await Self.installations(targetAPI, to) == Self.installations(sourceAPI, from))
    }

    private static func createApp(_ api: HTTPJSON) async throws -> (appId: String, serverKey: String) {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let created = try await api.call("POST", "/v1/apps", key: adminKey, json: """
            {"bundleId":"com.example.garage","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox",
             "privateKey":\(String(decoding: try JSONEncoder().encode(pem), as: UTF8.self))}
            """)
        let app = try #require(created.json as? [String: Any])
        return (try #require(app["appId"] as? String), try #require(app["serverKey"] as? String))
    }

    /// Every installation of the app as the API answers it, without what differs by server (`lastSeenAt`).
    private static func installations(_ api: HTTPJSON, _ app: (appId: String, serverKey: String)) async throws -> [String] {
        let page = try await api.call("GET", "/v1/apps/\(app.appId)/installations?limit=1000", key: app.serverKey)
        #expect(page.status == 200)
        let ids = try #require((page.json as? [String: Any])?["installationIds"] as? [String])
        var found: [String] = []
        for id in ids {
            var installation = try #require(try await api.call("GET", "/v1/apps/\(app.appId)/installations/\(id)", key: app.serverKey).json as? [String: Any])
            installation["lastSeenAt"] = nil
            found.append(String(decoding: try JSONSerialization.data(withJSONObject: installation, options: .sortedKeys), as: UTF8.self))
        }
        return found
    }

    private static func token(_ installation: Int, _ kind: Int) -> String {
        String(format: "%02x%06x", kind, installation) + String(repeating: "ab", count: 28)
    }
}
