import APNsSimulator
import Crypto
import Foundation
import Logging
import SignalboxTestSupport
import Testing

/// `signalbox apps check` and `apps update-key` against a real `signalbox serve` sending to a simulator that knows
/// only the keys this test registers.
struct CredentialCLITests {
    @Test func theCLIChecksAKeyThenPutsItInPlace() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let simulator = try await APNsSimulator.start(configuration: .init(), logger: Logger(label: "test.simulator"))
        do {
            try await checkThenUpdate(simulator, directory)
        } catch {
            try? await simulator.shutdown()
            throw error
        }
        try await simulator.shutdown()
    }

    private func checkThenUpdate(_ simulator: APNsSimulator, _ directory: String) async throws {
        try simulator.certificatePEM.write(toFile: directory + "/ca.pem", atomically: true, encoding: .utf8)
        let old = P256.Signing.PrivateKey(), new = P256.Signing.PrivateKey()
        simulator.register(publicKey: old.publicKey, keyId: "KEYOLD0001", teamId: "TEAM123456")
        try old.pemRepresentation.write(toFile: directory + "/old.p8", atomically: true, encoding: .utf8)
        try new.pemRepresentation.write(toFile: directory + "/new.p8", atomically: true, encoding: .utf8)

        let adminKey = "sba_keys-cli-test-admin-key-0123456789"
        let server = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", directory + "/data", "--apns-host", "127.0.0.1", "--apns-port", String(simulator.port),
             "--apns-ca", directory + "/ca.pem"],
            environment: ["SIGNALBOX_ADMIN_KEY": adminKey]
        )
        defer { server.kill(SIGTERM) }
        let base = "http://127.0.0.1:" + (try await server.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#))
        let connection = ["--url", base, "--admin-key", adminKey]
        let create = try ChildProcess(["apps", "create", "--bundle-id", "com.example.garage", "--team-id", "TEAM123456", "--key-id", "KEYOLD0001",
                                       "--key", directory + "/old.p8", "--environment", "sandbox"] + connection)
        defer { create.kill() }
        let appId = try await create.waitFor(#""appId" : "([^"]+)""#)

        let stored = try ChildProcess(["apps", "check", appId] + connection)
        defer { stored.kill() }
        _ = try await stored.waitFor(#"production: good \(key KEYOLD0001, team TEAM123456; APNs: 400 BadDeviceToken\)"#)
        #expect(try await stored.waitForExit() == 0)

        // The new key is not known to APNs yet: the check says so in words and fails.
        let unknown = try ChildProcess(["apps", "check", appId, "--key", directory + "/new.p8", "--key-id", "KEYNEW0001", "--team-id", "TEAM123456"] + connection)
        defer { unknown.kill() }
        _ = try await unknown.waitFor(#"sandbox: NOT GOOD .*InvalidProviderToken\)\n +APNs does not accept the key"#)
        #expect(try await unknown.waitForExit() == 1)

        simulator.register(publicKey: new.publicKey, keyId: "KEYNEW0001", teamId: "TEAM123456")
        let update = try ChildProcess(["apps", "update-key", appId, "--key", directory + "/new.p8", "--key-id", "KEYNEW0001",
                                       "--team-id", "TEAM123456", "--environment", "sandbox"] + connection)
        defer { update.kill() }
        _ = try await update.waitFor(#""environmentOnly" : true,\s+"keyId" : "(KEYNEW0001)""#)
        #expect(try await update.waitForExit() == 0)
        let after = try ChildProcess(["apps", "check", appId, "--environment", "sandbox"] + connection)
        defer { after.kill() }
        _ = try await after.waitFor(#"sandbox: good \(key (KEYNEW0001)"#)
        #expect(try await after.waitForExit() == 0)
    }
}
