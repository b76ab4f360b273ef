import Crypto
import Foundation
import Testing

/// The dashboard's "Replace APNs key" form: the API's key replacement for admin sessions, never showing the key back.
@Suite struct DashboardSigningKeyTests {
    @Test func theAdminReplacesTheKeyAndTheCheckUsesIt() async throws {
        try await CredentialHarness.run { harness in
            let old = P256.Signing.PrivateKey(), new = P256.Signing.PrivateKey()
            harness.trust(new, keyId: "KEYNEW0001")  // APNs knows only the new key
            let app = try await harness.api.createApp(privateKey: old, keyId: "KEYOLD0001")
            var admin = DashboardTests.Browser(client: harness.api.client)
            _ = try await admin.signIn(Harness.adminKey)
            let overview = try await admin.get("/dashboard/apps/\(app.id)")
            #expect(overview.body.contains("/dashboard/apps/\(app.id)/apns-key"), "the app page links the form")
            let page = try await admin.get("/dashboard/apps/\(app.id)/apns-key")
            #expect(page.status == 200 && page.body.contains("KEYOLD0001"))
            #expect(page.body.contains(#"<option value="" selected>both environments</option>"#) && page.body.contains(#"<option value="production">"#))
            let saved = try await admin.post("/dashboard/apps/\(app.id)/apns-key", multipart: [
                "csrf": try #require(page.csrf), "privateKeyFile": new.pemRepresentation, "privateKey": "", "keyId": "KEYNEW0001",
                "teamId": "TEAM123456", "environment": "",
            ])
            #expect(saved.status == 200 && saved.body.contains("The APNs key was replaced"), "\(saved.body)")
            #expect(!saved.body.contains("PRIVATE KEY") && !saved.body.contains(Self.keyBody(new)), "the key is never shown")
            #expect(saved.body.contains("KEYNEW0001") && !saved.body.contains("KEYOLD0001"))
            let keys = try await harness.api.call(.get, "/v1/apps/\(app.id)/apns-key", key: Harness.adminKey)
            #expect(((keys.json?["keys"] as? [[String: Any]]) ?? []).map { $0["keyId"] as? String } == ["KEYNEW0001", "KEYNEW0001"], "\(keys.body)")
            // The result page offers the check, which signs with the stored (new) key.
            #expect(saved.body.contains("action=\"/dashboard/apps/\(app.id)/check\""))
            let checked = try await admin.post("/dashboard/apps/\(app.id)/check", form: ["csrf": try #require(saved.csrf)])
            #expect(checked.body.contains("sandbox: good") && checked.body.contains("production: good"), "\(checked.body)")
            #expect(checked.body.contains("KEYNEW0001"))

            // A pasted key for sandbox alone.
            let sandboxKey = P256.Signing.PrivateKey()
            let pasted = try await admin.post("/dashboard/apps/\(app.id)/apns-key", form: [
                "csrf": try #require(saved.csrf), "privateKey": sandboxKey.pemRepresentation, "keyId": "KEYSANDBOX", "teamId": "TEAM123456",
                "environment": "sandbox",
            ])
            #expect(pasted.status == 200 && !pasted.body.contains("PRIVATE KEY"))
            let listed = (try await harness.api.call(.get, "/v1/apps/\(app.id)/apns-key", key: Harness.adminKey).json?["keys"] as? [[String: Any]]) ?? []
            #expect(listed.map { $0["keyId"] as? String } == ["KEYSANDBOX", "KEYNEW0001"])
        }
    }

    @Test func badInputIsExplainedInPlainWordsWithoutTheKey() async throws {
        try await CredentialHarness.run { harness in
            let key = P256.Signing.PrivateKey()
            let app = try await harness.api.createApp(privateKey: key, keyId: "KEYOLD0001")
            var admin = DashboardTests.Browser(client: harness.api.client)
            _ = try await admin.signIn(Harness.adminKey)
            let csrf = try #require(try await admin.get("/dashboard/apps/\(app.id)/apns-key").csrf)
            let path = "/dashboard/apps/\(app.id)/apns-key"
            // A PEM that is not a key: its text must not come back.
            let broken = "-----BEGIN PRIVATE KEY-----\nTUlHSEFnRUFNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQkcwd2F3SUJBUVFn\n-----END PRIVATE KEY-----"
            let badPEM = try await admin.post(path, multipart: [
                "csrf": csrf, "privateKeyFile": broken, "keyId": "KEYNEW0001", "teamId": "TEAM123456", "environment": "sandbox",
            ])
            #expect(badPEM.status == 400 && badPEM.body.contains("not a P-256 PEM (.p8) key"), "\(badPEM.body)")
            #expect(!badPEM.body.contains("PRIVATE KEY") && !badPEM.body.contains("TUlHSEFnRUFN"), "no key material in the page")
            #expect(badPEM.body.contains(#"value="KEYNEW0001""#), "the ids are kept for another try")
            #expect(badPEM.body.contains(#"<option value="sandbox" selected>"#), "and the environment")
            // A good key with a key id of the wrong length.
            let shortId = try await admin.post(path, form: ["csrf": csrf, "privateKey": key.pemRepresentation, "keyId": "KEY1", "teamId": "TEAM123456"])
            #expect(shortId.status == 400 && shortId.body.contains("key id must be 10 upper-case letters or digits"), "\(shortId.body)")
            #expect(!shortId.body.contains("PRIVATE KEY") && !shortId.body.contains(Self.keyBody(key)))
            let missing = try await admin.post(path, form: ["csrf": csrf, "privateKey": " ", "keyId": "KEYNEW0001", "teamId": "TEAM123456"])
            #expect(missing.status == 400 && missing.body.contains("the .p8 key is required"), "\(missing.body)")
            let environment = try await admin.post(path, form: [
                "csrf": csrf, "privateKey": key.pemRepresentation, "keyId": "KEYNEW0001", "teamId": "TEAM123456", "environment": "staging",
            ])
            #expect(environment.status == 400 && environment.body.contains("the environment must be"), "\(environment.body)")
            let keys = (try await harness.api.call(.get, "/v1/apps/\(app.id)/apns-key", key: Harness.adminKey).json?["keys"] as? [[String: Any]]) ?? []
            #expect(keys.allSatisfy { $0["keyId"] as? String == "KEYOLD0001" }, "nothing was replaced")
            #expect(try await admin.post(path, form: ["csrf": "forged", "privateKey": key.pemRepresentation]).status == 403)
        }
    }

    @Test func aServerKeySessionGetsNoFormAndMayNotPost() async throws {
        try await CredentialHarness.run { harness in
            let key = P256.Signing.PrivateKey()
            let app = try await harness.api.createApp(privateKey: key, keyId: "KEYOLD0001")
            var owner = DashboardTests.Browser(client: harness.api.client)
            _ = try await owner.signIn(app.serverKey)
            let overview = try await owner.get("/dashboard/apps/\(app.id)")
            #expect(overview.status == 200 && !overview.body.contains("/apns-key"), "no link")
            let page = try await owner.get("/dashboard/apps/\(app.id)/apns-key")
            #expect(page.status == 403 && !page.body.contains("privateKey"), "no form")
            let posted = try await owner.post("/dashboard/apps/\(app.id)/apns-key", form: [
                "csrf": try #require(overview.csrf), "privateKey": P256.Signing.PrivateKey().pemRepresentation, "keyId": "KEYNEW0001", "teamId": "TEAM123456",
            ])
            #expect(posted.status == 403)
            let keys = (try await harness.api.call(.get, "/v1/apps/\(app.id)/apns-key", key: Harness.adminKey).json?["keys"] as? [[String: Any]]) ?? []
            #expect(keys.allSatisfy { $0["keyId"] as? String == "KEYOLD0001" }, "nothing was replaced")
        }
    }

    /// A line of the key's base64 body, to look for in pages.
    static func keyBody(_ key: P256.Signing.PrivateKey) -> String {
        String(key.pemRepresentation.split(separator: "\n")[1].prefix(40))
    }
}
