import Crypto
import Foundation
import SignalboxAPI
import Testing

/// `/v1/apps`: creation checks, secrets shown once and never again, deletion, key rotation.
struct AppsAPITests {
    @Test func createdAppIsReadableWithoutSecrets() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            #expect(app.serverKey.hasPrefix("sbk_"))
            #expect(app.deviceSecret.hasPrefix("sbd_"))
            let read = try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey)
            #expect(read.status == 200)
            #expect(read.json?["bundleId"] as? String == "com.example.garage")
            // Dates are ISO 8601 UTC strings: the harness clock's time.
            let createdAt = try #require(read.json?["createdAt"] as? String)
            #expect(createdAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(createdAt)")
            #expect(abs(try #require(SignalboxJSON.parse(createdAt)).timeIntervalSince(harness.clock.now)) < 1)
            for secret in [app.serverKey, app.deviceSecret, "PRIVATE KEY", "privateKey", "serverKey"] {
                #expect(!read.body.contains(secret))
            }
            let list = try await api.call(.get, "/v1/apps", key: Harness.adminKey)
            #expect(list.body.contains(app.id))
            #expect(!list.body.contains("PRIVATE KEY"))
        }
    }

    static let badApps: [(String, String, String)] = [
        ("not a key", #""privateKey":"hello""#, "privateKey"),
        ("RSA-sized garbage PEM", #""privateKey":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----""#, "privateKey"),
        ("short team id", #""teamId":"TEAM""#, "teamId"),
        ("lower-case key id", #""keyId":"key1234567""#, "keyId"),
        ("unknown environment", #""environment":"staging""#, "environment"),
        ("bundle id with spaces", #""bundleId":"com example""#, "bundleId"),
    ]

    @Test(arguments: badApps.indices)
    func invalidAppIsRefusedWithTheField(_ index: Int) async throws {
        let (name, override, field) = Self.badApps[index]
        try await Harness.make().run { api in
            var fields = [
                "bundleId": #""bundleId":"com.example.app""#, "teamId": #""teamId":"TEAM123456""#,
                "keyId": #""keyId":"KEY1234567""#, "environment": #""environment":"sandbox""#,
                "privateKey": #""privateKey":\#(jsonString(P256.Signing.PrivateKey().pemRepresentation))"#,
            ]
            fields[field] = override
            let reply = try await api.call(.post, "/v1/apps", key: Harness.adminKey, json: "{" + fields.values.joined(separator: ",") + "}")
            #expect(reply.status == 400, "\(name): \(reply.body)")
            #expect(reply.errorMessage?.hasPrefix(field) == true, "\(name): \(reply.body)")
            #expect(!reply.body.contains("BEGIN"), "the key must not be echoed")
        }
    }

    @Test func unknownFieldAndMissingFieldAreNamed() async throws {
        try await Harness.make().run { api in
            let unknown = try await api.call(.post, "/v1/apps", key: Harness.adminKey, json: #"{"bundleId":"a","colour":"red"}"#)
            #expect(unknown.status == 400)
            #expect(unknown.errorMessage?.contains("colour") == true)
            let missing = try await api.call(.post, "/v1/apps", key: Harness.adminKey, json: #"{"bundleId":"a"}"#)
            #expect(missing.status == 400)
            #expect(missing.errorMessage?.contains("is required") == true)
        }
    }

    @Test func deletingAnAppRemovesItsDataAndKeys() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            try await api.call(.put, "/v1/apps/\(app.id)/installations/i1", key: app.serverKey, json: "{}")
            #expect(try await api.call(.delete, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 204)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 404)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)/installations/i1", key: app.serverKey).status == 401)
            #expect(try await api.call(.delete, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 404)
        }
    }

    @Test func rotatingTheServerKeyRetiresTheOldOne() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let rotated = try await api.call(.post, "/v1/apps/\(app.id)/server-key", key: Harness.adminKey)
            let newKey = try #require(rotated.json?["serverKey"] as? String)
            #expect(newKey != app.serverKey)
            #expect(try await api.call(.put, "/v1/apps/\(app.id)/installations/i1", key: app.serverKey, json: "{}").status == 401)
            #expect(try await api.call(.put, "/v1/apps/\(app.id)/installations/i1", key: newKey, json: "{}").status == 204)
        }
    }
}
