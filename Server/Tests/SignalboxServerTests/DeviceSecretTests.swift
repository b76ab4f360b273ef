import Crypto
import Foundation
import Logging
import SignalboxAPI
import SignalboxModel
import SignalboxServer
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// Device-secret rotation and sealed secrets bound to their app and column (design.md "Security").
struct DeviceSecretTests {
    @Test func rotationWithoutGraceStopsTheOldSecretAtOnce() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let path = "/v1/apps/\(app.id)/installations/i1"
            let old = try await app.sign(app.claims(now: harness.clock.now))
            #expect(try await api.call(.put, path, key: old, json: "{}").status == 204)

            #expect(try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: app.serverKey).status == 403)
            let rotated = try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: Harness.adminKey)
            #expect(rotated.status == 200)
            #expect(rotated.headers[.cacheControl] == "no-store")
            let secret = try #require(rotated.json?["deviceSecret"] as? String)
            #expect(secret.hasPrefix("sbd_") && secret != app.deviceSecret)
            #expect(rotated.json?["previousSecretValidUntil"] == nil)

            #expect(try await api.call(.put, path, key: old, json: "{}").errorCode == "invalid_token")
            let new = try await app.sign(app.claims(now: harness.clock.now), secret: secret)
            #expect(try await api.call(.put, path, key: new, json: "{}").status == 204)
            // The secret is shown once: reading the app never shows it.
            #expect(!(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).body.contains(secret)))
            #expect(try await api.call(.post, "/v1/apps/nope/device-secret", key: Harness.adminKey).status == 404)
        }
    }

    @Test func rotationWithGraceKeepsTheOldSecretThatLong() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let path = "/v1/apps/\(app.id)/installations/i1"
            let rotated = try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: Harness.adminKey, json: #"{"graceSeconds":300}"#)
            #expect(rotated.status == 200)
            let secret = try #require(rotated.json?["deviceSecret"] as? String)
            let text = try #require(rotated.json?["previousSecretValidUntil"] as? String)
            #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "ISO 8601 UTC: \(text)")
            let until = try #require(SignalboxJSON.parse(text))
            #expect(abs(until.timeIntervalSince(harness.clock.now) - 300) < 1)

            harness.advance(seconds: 290)
            let old = try await app.sign(app.claims(now: harness.clock.now))
            let new = try await app.sign(app.claims(now: harness.clock.now), secret: secret)
            #expect(try await api.call(.put, path, key: old, json: "{}").status == 204)
            #expect(try await api.call(.put, path, key: new, json: "{}").status == 204)
            harness.advance(seconds: 11)  // the grace period is over
            #expect(try await api.call(.put, path, key: old, json: "{}").errorCode == "invalid_token")
            #expect(try await api.call(.put, path, key: new, json: "{}").status == 204)

            // A second rotation without grace drops the previous secret; bad bodies are refused.
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: Harness.adminKey, json: #"{"graceSeconds":-1}"#).status == 400)
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: Harness.adminKey, json: #"{"grace":5}"#).status == 400)
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/device-secret", key: Harness.adminKey, json: #"{"graceSeconds":0}"#).status == 200)
            #expect(try await api.call(.put, path, key: new, json: "{}").errorCode == "invalid_token")
        }
    }

    @Test func aSealedValueOpensOnlyForItsAppAndColumn() throws {
        let secrets = try SecretBox(masterKey: Secret.randomBytes(32))
        let sealed = try secrets.seal("sbd_secret", appId: "app-a", column: .deviceSecret)
        #expect(sealed.first == 1)  // the version byte
        #expect(try secrets.open(sealed, appId: "app-a", column: .deviceSecret) == "sbd_secret")
        #expect(throws: SecretBox.OpenError.self) { try secrets.open(sealed, appId: "app-b", column: .deviceSecret) }
        #expect(throws: SecretBox.OpenError.self) { try secrets.open(sealed, appId: "app-a", column: .privateKey) }
        #expect(throws: SecretBox.OpenError.self) { try secrets.open(sealed, appId: "app-a", column: .previousDeviceSecret) }
        // Without its version byte (as legacy values are) it does not open either.
        #expect(throws: SecretBox.OpenError.self) { try secrets.open(Array(sealed.dropFirst()), appId: "app-a", column: .deviceSecret) }
    }

    /// A device secret sealed for app B and put in app A's row does not open there: A's devices are refused
    /// even with B's secret, instead of B's secret becoming A's.
    @Test func aSealedValueMovedToAnotherAppDoesNotOpen() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let a = try await api.createApp()
            let b = try await api.createApp(bundleId: "com.example.other")
            let store = harness.dependencies.stores
            let sealedB = try #require(try await store.registry.app(id: b.id)).sealedDeviceSecret
            #expect(try await store.registry.rotateDeviceSecret(appId: a.id, sealed: sealedB, previous: nil, previousExpiresAt: nil))
            let path = "/v1/apps/\(a.id)/installations/i1"
            var claims = a.claims(now: harness.clock.now)
            #expect(try await api.call(.put, path, key: try await a.sign(claims, secret: b.deviceSecret), json: "{}").errorCode == "invalid_token")
            claims.aud = .one(b.id)
            #expect(try await api.call(.put, "/v1/apps/\(b.id)/installations/i1", key: try await b.sign(claims), json: "{}").status == 204)
        }
    }

    /// Rows written before values were bound (no version byte, no associated data) are re-sealed at start:
    /// refused before, working after, bound to their app and column, and a second run changes nothing.
    @Test func legacySealedRowsAreResealedAtStart() async throws {
        let masterKey = Secret.randomBytes(32)
        let key = SymmetricKey(data: masterKey)
        func legacySeal(_ text: String) throws -> [UInt8] { Array(try AES.GCM.seal(Data(text.utf8), using: key).combined!) }
        let deviceSecret = Secret.generate(prefix: "sbd_")
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let appId = "legacy-app"
        let database = try await Backend.sqlite.open()
        try await closing(database) { store in
            try await store.registry.createApp(
                AppRecord(
                    id: appId, bundleId: "com.example.legacy", teamId: "TEAM123456", keyId: "KEY1234567", environment: .sandbox,
                    sealedPrivateKey: try legacySeal(pem), sealedDeviceSecret: try legacySeal(deviceSecret),
                    serverKeyHash: Secret.hash("sbk_legacy"), createdAt: Date()
                )
            )
            let secrets = try SecretBox(masterKey: masterKey)
            // Legacy values are not read as bound ones.
            let legacy = try #require(try await store.registry.app(id: appId))
            #expect(throws: SecretBox.OpenError.self) { try secrets.open(legacy.sealedDeviceSecret, appId: appId, column: .deviceSecret) }

            #expect(try await resealLegacySecrets(store: store.registry, secrets: secrets, logger: Logger(label: "test")) == 1)
            let record = try #require(try await store.registry.app(id: appId))
            #expect(record.sealedDeviceSecret.first == 1 && record.sealedPrivateKey.first == 1)
            #expect(try secrets.open(record.sealedDeviceSecret, appId: appId, column: .deviceSecret) == deviceSecret)
            #expect(try secrets.open(record.sealedPrivateKey, appId: appId, column: .privateKey) == pem)
            #expect(try await resealLegacySecrets(store: store.registry, secrets: secrets, logger: Logger(label: "test")) == 0)
            #expect(try await store.registry.app(id: appId) == record)

            let app = TestApp(id: appId, serverKey: "sbk_legacy", deviceSecret: deviceSecret)
            let harness = try await Harness.make(masterKey: masterKey, store: database)
            try await harness.run { api in
                let token = try await app.sign(app.claims(now: harness.clock.now))
                #expect(try await api.call(.put, "/v1/apps/\(appId)/installations/i1", key: token, json: "{}").status == 204)
            }
        }
    }
}
