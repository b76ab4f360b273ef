import Foundation
import SignalboxTestSupport
import Testing

/// `kill -9` of a real server process during fan-out and delivery loses no accepted event and no push.
@Suite struct CrashTests {
    static let installations = 400
    static let controlsEach = 3

    @Test func killedServerDeliversEverythingAfterRestart() async throws {
        // The simulator lives in its own process and answers each push after 500 ms: with 40 in flight the last
        // two thirds take at least 10 s, so the second kill lands in the middle of delivery even on a stalled run.
        let fixture = try await SimulatorProcess.start(name: "crash", latencyMs: 500)
        defer { fixture.stop() }
        let (directory, pem, apnsPort, admin) = (fixture.directory, fixture.pem, fixture.apnsPort, fixture.admin)
        let adminKey = "sba_crash-test-admin-0123456789abcdef"
        func startServer() async throws -> (ChildProcess, HTTPJSON) {
            let server = try await ServerProcess.start(
                dataDirectory: directory + "/data", arguments: ["--apns-host", "127.0.0.1", "--apns-port", apnsPort, "--apns-ca", directory + "/ca.pem"],
                environment: ["SIGNALBOX_ADMIN_KEY": adminKey, "SIGNALBOX_MAX_IN_FLIGHT": "40"]
            )
            return (server.process, server.api)
        }

        var (server, api) = try await startServer()
        let created = try await api.call("POST", "/v1/apps", key: adminKey, json: """
            {"bundleId":"com.example.garage","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox",
             "privateKey":\(String(decoding: try JSONEncoder().encode(pem), as: UTF8.self))}
            """)
        let app = try #require(created.json as? [String: Any])
        let appId = try #require(app["appId"] as? String)
        let serverKey = try #require(app["serverKey"] as? String)
        var tokens: Set<String> = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask { [api] in
                    for installation in stride(from: worker, to: Self.installations, by: 8) {
                        let base = "/v1/apps/\(appId)/installations/i\(installation)"
                        try await api.call("PUT", base, key: serverKey, json: #"{"channels":["home"]}"#)
                        let controls = (0..<Self.controlsEach).map { #"{"kind":"door","configuration":{},"pushToken":"\#(Self.token(installation, $0))"}"# }
                        let reply = try await api.call("PUT", base + "/controls", key: serverKey, json: #"{"controls":[\#(controls.joined(separator: ","))]}"#)
                        #expect(reply.status == 204)
                    }
                }
            }
            try await group.waitForAll()
        }
        for installation in 0..<Self.installations { for index in 0..<Self.controlsEach { tokens.insert(Self.token(installation, index)) } }

        let accepted = try await api.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
        #expect(accepted.status == 202)
        let eventId = try #require((accepted.json as? [String: Any])?["eventId"] as? String)
        // Kill 1: right after the 202, during fan-out. Kill 2: in the middle of delivery.
        server.kill()
        (server, api) = try await startServer()
        let total = tokens.count
        let deliveringDeadline = ContinuousClock.now + .seconds(300)
        while try await Self.acceptedCount(admin) < total / 3 {
            guard ContinuousClock.now < deliveringDeadline else { throw ChildProcessError(message: "a third was never delivered") }
            try await Task.sleep(for: .milliseconds(10))
        }
        server.kill()
        let atKill = try await Self.acceptedCount(admin)
        #expect(atKill < total, "the second kill landed before delivery finished")
        (server, api) = try await startServer()
        defer { server.kill(SIGTERM) }

        var status: [String: Any] = [:]
        // A bound for a hang: the rest take about 10 s alone, far longer on a loaded run.
        let deadline = ContinuousClock.now + .seconds(300)
        while status["state"] as? String != "done", ContinuousClock.now < deadline {
            status = try await api.call("GET", "/v1/apps/\(appId)/events/\(eventId)", key: serverKey).json as? [String: Any] ?? [:]
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(status["state"] as? String == "done")
        #expect(status["matched"] as? Int == total)
        #expect(status["delivered"] as? Int == total)
        let pushes = try #require(try await admin.call("GET", "/pushes").json as? [[String: Any]])
        #expect(Set(pushes.compactMap { $0["token"] as? String }) == tokens)
        print("crash.duplicates_after_two_kills=\(pushes.count - total) pushes (bound 80)")
        // Only what was in flight at a kill (at most SIGNALBOX_MAX_IN_FLIGHT = 40 each time) may be sent twice.
        #expect(pushes.count - total <= 2 * 40, "\(pushes.count - total) duplicates after two kills")
    }

    static func token(_ installation: Int, _ index: Int) -> String { String(format: "%06x%02x", installation, index) }

    static func acceptedCount(_ admin: HTTPJSON) async throws -> Int {
        (try await admin.call("GET", "/pushes/count").json as? [String: Any])?["count"] as? Int ?? 0
    }
}
