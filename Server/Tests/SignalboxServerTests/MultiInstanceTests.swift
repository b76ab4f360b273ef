import Foundation
import SignalboxStoreTestSupport
import SignalboxTestSupport
import Testing

/// Two `signalbox serve` processes on one PostgreSQL database share an event's fan-out and delivery; each is
/// killed with `kill -9` once (the first during the fan-out, the second during delivery) and restarted. Every
/// token gets its push, the event's counters are exact, and only pushes in flight in a killed process may be
/// sent twice.
@Suite struct MultiInstanceTests {
    static let installations = 1_000
    static let controlsEach = 20
    static let maxInFlight = 100

    @Test func twoInstancesFinishAnEventThroughTwoKills() async throws {
        let database = try await TestDatabases.fresh()
        // One simulator for both instances; each push is answered after 50 ms, so with 100 in flight per instance the
        // fan-out (which follows delivery) and the delivery each last seconds: the kills land in their middle even
        // on a stalled run (10 ms left about a second).
        let fixture = try await SimulatorProcess.start(name: "multi", latencyMs: 50)
        defer { fixture.stop() }
        let (directory, pem, apnsPort, admin) = (fixture.directory, fixture.pem, fixture.apnsPort, fixture.admin)
        let adminKey = "sba_multi-instance-admin-0123456789abcdef"
        let masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        func start(_ name: String) async throws -> (ChildProcess, HTTPJSON) {
            let server = try ChildProcess(
                ["serve", "--port", "0", "--data-dir", directory + "/" + name, "--database", database,
                 "--apns-host", "127.0.0.1", "--apns-port", apnsPort, "--apns-ca", directory + "/ca.pem"],
                environment: [
                    "SIGNALBOX_ADMIN_KEY": adminKey, "SIGNALBOX_MASTER_KEY": masterKey,
                    // Leases short enough that a killed instance's claims come back within the test's limit; long
                    // enough that a live instance under load records its answers before its own claims end.
                    "SIGNALBOX_MAX_IN_FLIGHT": "\(Self.maxInFlight)", "SIGNALBOX_CLAIM_LEASE_SECONDS": "120",
                    // Small pages, so the fan-out lasts long enough to be killed in the middle of it, and the
                    // 1,000 installations are enough pages to be cut into ranges that both instances plan.
                    "SIGNALBOX_FAN_OUT_BATCH": "25",
                ]
            )
            do {
                let port = try await server.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#)
                return (server, HTTPJSON(base: "http://127.0.0.1:" + port))
            } catch {
                server.kill()
                throw error
            }
        }

        var (first, firstAPI) = try await start("a")
        var (second, secondAPI) = try await start("b")
        defer {
            first.kill(SIGTERM)
            second.kill(SIGTERM)
        }
        let created = try await firstAPI.call("POST", "/v1/apps", key: adminKey, json: """
            {"bundleId":"com.example.garage","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox",
             "privateKey":\(String(decoding: try JSONEncoder().encode(pem), as: UTF8.self))}
            """)
        let app = try #require(created.json as? [String: Any])
        let appId = try #require(app["appId"] as? String)
        let serverKey = try #require(app["serverKey"] as? String)
        // Registrations go to both instances.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask { [firstAPI, secondAPI] in
                    let api = worker % 2 == 0 ? firstAPI : secondAPI
                    for installation in stride(from: worker, to: Self.installations, by: 8) {
                        let base = "/v1/apps/\(appId)/installations/i\(installation)"
                        try await api.call("PUT", base, key: serverKey, json: #"{"channels":["home"]}"#)
                        let controls = (0..<Self.controlsEach).map { #"{"kind":"door","configuration":{},"pushToken":"\#(CrashTests.token(installation, $0))"}"# }
                        let reply = try await api.call("PUT", base + "/controls", key: serverKey, json: #"{"controls":[\#(controls.joined(separator: ","))]}"#)
                        #expect(reply.status == 204)
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = Self.installations * Self.controlsEach

        let accepted = try await firstAPI.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
        #expect(accepted.status == 202)
        let eventId = try #require((accepted.json as? [String: Any])?["eventId"] as? String)
        func status() async throws -> [String: Any] {
            try await secondAPI.call("GET", "/v1/apps/\(appId)/events/\(eventId)", key: serverKey).json as? [String: Any] ?? [:]
        }
        // Kill 1: the first instance (which was sent the event), while the event is being fanned out.
        let fanningOutDeadline = ContinuousClock.now + .seconds(300)
        while try await status()["matched"] as? Int ?? 0 < 2_000 {
            guard ContinuousClock.now < fanningOutDeadline else { throw ChildProcessError(message: "the fan-out never reached 2,000 pushes") }
            try await Task.sleep(for: .milliseconds(5))
        }
        first.kill()
        // What may be sent twice: pushes claimed and not yet recorded when the process died (counted for both
        // instances, so an upper bound): sent or being sent, or answered and waiting for the next recording.
        func unrecorded() async throws -> Int { Int(try await TestDatabases.psql(database, "SELECT (SELECT COUNT(*) FROM outbox WHERE state = 'sending') + (SELECT COALESCE(SUM(LENGTH(settled) - LENGTH(REPLACE(settled, '0', ''))), 0) FROM handoffs)")) ?? 0 }
        var atRisk = try await unrecorded()
        let planned = try await status()["matched"] as? Int ?? 0
        print("multi.kill1_matched=\(planned) of \(total)")
        #expect(planned < total, "the first kill landed after the fan-out had finished")
        (first, firstAPI) = try await start("a")
        // Kill 2: the second instance, in the middle of delivery.
        let deliveringDeadline = ContinuousClock.now + .seconds(300)
        while try await CrashTests.acceptedCount(admin) < total / 2 {
            guard ContinuousClock.now < deliveringDeadline else { throw ChildProcessError(message: "half was never delivered") }
            try await Task.sleep(for: .milliseconds(10))
        }
        second.kill()
        atRisk += try await unrecorded()
        let atKill = try await CrashTests.acceptedCount(admin)
        #expect(atKill < total, "the second kill landed after delivery had finished")
        (second, secondAPI) = try await start("b")

        var final: [String: Any] = [:]
        // A bound for a hang: the killed instances' claims come back only when their 120 s leases end.
        let deadline = ContinuousClock.now + .seconds(600)
        while final["state"] as? String != "done", ContinuousClock.now < deadline {
            final = try await status()
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(final["state"] as? String == "done")
        #expect(final["matched"] as? Int == total)
        #expect(final["delivered"] as? Int == total)
        #expect(final["failed"] as? Int == 0)
        #expect(try await TestDatabases.psql(database, "SELECT fan_out_ranges FROM events") == "3", "975 installations after the first page, in pages of 25: 3 ranges")
        let pushes = try #require(try await admin.call("GET", "/pushes").json as? [[String: Any]])
        var received: [String: Int] = [:]
        for push in pushes { if let token = push["token"] as? String { received[token, default: 0] += 1 } }
        let expected = Set((0..<Self.installations).flatMap { installation in (0..<Self.controlsEach).map { CrashTests.token(installation, $0) } })
        #expect(Set(received.keys) == expected, "every token received its push")
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        print("multi.duplicates_after_two_kills=\(duplicates) pushes (claimed and unrecorded at the kills: \(atRisk))")
        #expect(duplicates <= atRisk, "only pushes claimed and not recorded at a kill may be sent twice")
    }
}
