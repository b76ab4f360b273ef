import Crypto
import Foundation
import Logging
import SignalboxModel
import SignalboxServer
import SignalboxStore
import SignalboxStoreTestSupport
import SignalboxTestSupport
import Testing

/// A real `signalbox serve` on a data directory written before sealed values were bound: it re-seals them at
/// start, and `signalbox apps rotate-device-secret` rotates the device secret with a grace period.
struct DeviceSecretCLITests {
    @Test func serveResealsLegacyRowsAndTheCLIRotatesTheDeviceSecret() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-device-\(UUID().uuidString)").path
        let data = directory + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // A database as an older Signalbox left it: secrets sealed without version byte or associated data.
        let masterKey = Secret.randomBytes(32)
        let key = SymmetricKey(data: masterKey)
        func legacySeal(_ text: String) throws -> [UInt8] { Array(try AES.GCM.seal(Data(text.utf8), using: key).combined!) }
        let app = TestApp(id: "legacy-app", serverKey: "sbk_legacy", deviceSecret: Secret.generate(prefix: "sbd_"))
        try await closing(try await SQLStores.sqlite(path: data + "/signalbox.sqlite", logger: Logger(label: "test.store"))) { store in
            try await store.registry.createApp(
                AppRecord(
                    id: app.id, bundleId: "com.example.legacy", teamId: "TEAM123456", keyId: "KEY1234567", environment: .sandbox,
                    sealedPrivateKey: try legacySeal(P256.Signing.PrivateKey().pemRepresentation),
                    sealedDeviceSecret: try legacySeal(app.deviceSecret), serverKeyHash: Secret.hash(app.serverKey), createdAt: Date()
                )
            )
        }

        let adminKey = "sba_device-cli-test-admin-key-0123456789"
        let server = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", data, "--apns-host", "127.0.0.1", "--apns-port", "9"],
            environment: ["SIGNALBOX_ADMIN_KEY": adminKey, "SIGNALBOX_MASTER_KEY": Data(masterKey).base64EncodedString()]
        )
        defer { server.kill(SIGTERM) }
        let base = "http://127.0.0.1:" + (try await server.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#))
        let api = HTTPJSON(base: base)
        let path = "/v1/apps/\(app.id)/installations/i1"
        let old = try await app.sign(app.claims(now: Date()))
        #expect(try await api.call("PUT", path, key: old, json: "{}").status == 204)

        let cli = try ChildProcess(["apps", "rotate-device-secret", app.id, "--url", base, "--admin-key", adminKey, "--grace-seconds", "3600"])
        defer { cli.kill() }
        let secret = try await cli.waitFor(#""deviceSecret" : "(sbd_[A-Za-z0-9_-]{43})""#)
        let new = try await app.sign(app.claims(now: Date()), secret: secret)
        #expect(try await api.call("PUT", path, key: new, json: "{}").status == 204)
        // Within the grace: an hour, so a loaded run reaches this well inside it.
        #expect(try await api.call("PUT", path, key: old, json: "{}").status == 204)
    }
}
