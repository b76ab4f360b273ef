import Crypto
import Foundation
import Testing

/// Device JWTs (design.md "Security"): real tokens signed by jwt-kit, one test per rule. Each writes an
/// installation of user u1 with the token and expects 204 or the refusal.
struct DeviceTokenTests {
    /// PUTs installation `i1` of user u1 with `token`; returns status and error code.
    static func put(_ api: APIClient, _ app: TestApp, _ token: String, installation: String = "i1", json: String = "{}") async throws
        -> (Int, String?)
    {
        let reply = try await api.call(.put, "/v1/apps/\(app.id)/installations/\(installation)", key: token, json: json)
        #expect(!reply.body.contains(token), "a response echoed the token")
        return (reply.status, reply.errorCode)
    }

    @Test func expiryIsBoundedByTheAppsDeviceTokenLifetime() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let now = harness.clock.now
            let day = 86_400.0
            #expect(try await Self.put(api, app, try await app.sign(app.claims(now: now, expiresIn: day))).0 == 204)
            for far in [day + 120, 100 * 365 * day] {
                #expect(try await Self.put(api, app, try await app.sign(app.claims(now: now, expiresIn: far))) == (401, "invalid_token"))
            }
            var huge = app.claims(now: now)
            huge.exp = 1e308
            #expect(try await Self.put(api, app, try await app.sign(huge)) == (401, "invalid_token"))

            // Per app: an hour, set through the admin endpoint.
            #expect(try await api.call(.put, "/v1/apps/\(app.id)/device-tokens", key: app.serverKey, json: #"{"lifetimeSeconds":3600}"#).status == 403)
            let set = try await api.call(.put, "/v1/apps/\(app.id)/device-tokens", key: Harness.adminKey, json: #"{"lifetimeSeconds":3600}"#)
            #expect(set.json?["lifetimeSeconds"] as? Int == 3600)
            #expect(try await api.call(.put, "/v1/apps/\(app.id)/device-tokens", key: Harness.adminKey, json: #"{"lifetimeSeconds":5}"#).status == 400)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).json?["deviceTokenLifetimeSeconds"] as? Int == 3600)
            #expect(try await Self.put(api, app, try await app.sign(app.claims(now: now, expiresIn: 3000))).0 == 204)
            #expect(try await Self.put(api, app, try await app.sign(app.claims(now: now, expiresIn: 7200))) == (401, "invalid_token"))
        }
    }

    @Test func lifetimeCanBeSetWhenTheAppIsCreated() async throws {
        try await Harness.make().run { api in
            let pem = jsonString(P256.Signing.PrivateKey().pemRepresentation)
            let body = #"{"bundleId":"com.example.a","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox","privateKey":\#(pem),"#
            let created = try await api.call(.post, "/v1/apps", key: Harness.adminKey, json: body + #""deviceTokenLifetimeSeconds":600}"#)
            #expect(created.status == 201)
            #expect((created.json?["app"] as? [String: Any])?["deviceTokenLifetimeSeconds"] as? Int == 600)
            let appId = try #require(created.json?["appId"] as? String)
            #expect(try await api.call(.get, "/v1/apps/\(appId)/device-tokens", key: Harness.adminKey).json?["lifetimeSeconds"] as? Int == 600)
            let defaulted = try await api.call(.post, "/v1/apps", key: Harness.adminKey, json: String(body.replacingOccurrences(of: "com.example.a", with: "com.example.b").dropLast()) + "}")
            #expect((defaulted.json?["app"] as? [String: Any])?["deviceTokenLifetimeSeconds"] as? Int == 86_400)
        }
    }

    @Test func notBeforeIsHonouredWithLeeway() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let now = harness.clock.now.timeIntervalSince1970
            var claims = app.claims(now: harness.clock.now)
            claims.nbf = now + 120
            #expect(try await Self.put(api, app, try await app.sign(claims)) == (401, "invalid_token"))
            claims.nbf = now + 30  // within the 60 s leeway
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
            claims.nbf = now - 10
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
            // Later, the token that was too early is good.
            claims.nbf = now + 120
            let early = try await app.sign(claims)
            harness.advance(seconds: 90)
            #expect(try await Self.put(api, app, early).0 == 204)
        }
    }

    @Test func issuedAtInTheFutureIsRefused() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let now = harness.clock.now.timeIntervalSince1970
            var claims = app.claims(now: harness.clock.now)
            claims.iat = now + 120
            #expect(try await Self.put(api, app, try await app.sign(claims)) == (401, "invalid_token"))
            claims.iat = now + 30  // within the leeway
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
            claims.iat = now - 600
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
        }
    }

    @Test func expiryHasSixtySecondsOfLeeway() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now, expiresIn: 600))
            harness.advance(seconds: 630)  // expired 30 s ago: within the leeway
            #expect(try await Self.put(api, app, token).0 == 204)
            harness.advance(seconds: 60)  // expired 90 s ago
            #expect(try await Self.put(api, app, token) == (401, "token_expired"))
            // The lifetime bound has the same leeway ahead (see expiryIsBounded… for beyond it).
            let ahead = try await app.sign(app.claims(now: harness.clock.now, expiresIn: 86_400 + 30))
            #expect(try await Self.put(api, app, ahead).0 == 204)
        }
    }

    @Test func audienceMayBeAStringOrAnArrayHoldingTheAppId() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            var claims = app.claims(now: harness.clock.now)
            claims.aud = .many([app.id])
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
            claims.aud = .many(["someone-else", app.id])
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
            claims.aud = .many(["someone-else"])
            #expect(try await Self.put(api, app, try await app.sign(claims)) == (403, "forbidden"))
            claims.aud = .many([])
            #expect(try await Self.put(api, app, try await app.sign(claims)) == (403, "forbidden"))
            claims.aud = .one(app.id)
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
        }
    }

    @Test func subAudAndExpAreRequired() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let good = app.claims(now: harness.clock.now)
            var noSub = good
            noSub.sub = nil
            var emptySub = good
            emptySub.sub = ""
            var noAud = good
            noAud.aud = nil
            var noExp = good
            noExp.exp = nil
            for claims in [noSub, emptySub, noAud, noExp] {
                #expect(try await Self.put(api, app, try await app.sign(claims)) == (401, "invalid_token"))
            }
        }
    }

    @Test func nonCanonicalBase64URLIsRefused() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now))
            #expect(try await Self.put(api, app, token).0 == 204)
            let parts = token.split(separator: ".").map(String.init)
            // The signature (32 bytes, 43 characters) leaves two bits of its last character unused; setting one
            // decodes to the same bytes in a lenient decoder, but is another encoding.
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let last = try #require(parts[2].last.flatMap { alphabet.firstIndex(of: $0) })
            #expect(last % 4 == 0)
            let sloppy = parts[0] + "." + parts[1] + "." + String(parts[2].dropLast()) + String(alphabet[last + 1])
            let padded = parts[0] + "." + parts[1] + "." + parts[2] + "="
            let standardAlphabet = parts[0] + "." + parts[1] + "." + parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            for bad in [sloppy, padded] + (standardAlphabet == token ? [] : [standardAlphabet]) {
                #expect(try await Self.put(api, app, bad) == (401, "invalid_token"))
            }
        }
    }

    @Test func onlyHS256IsAccepted() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let claims = app.claims(now: harness.clock.now)
            func encode(_ json: String) -> String { base64URL(Data(json.utf8)) }
            let body = encode(String(decoding: try JSONEncoder().encode(claims), as: UTF8.self))
            let unsigned = [encode(#"{"alg":"none","typ":"JWT"}"#) + "." + body + ".", encode(#"{"alg":"none"}"#) + "." + body + ".AAAA"]
            for token in unsigned {
                #expect(try await Self.put(api, app, token) == (401, "invalid_token"))
            }
            #expect(try await Self.put(api, app, try await signES256(claims)) == (401, "invalid_token"))
            // A good HS256 signature under a header naming another algorithm.
            for alg in ["HS384", "ES256", "none", "hs256"] {
                #expect(try await Self.put(api, app, try await app.sign(claims, alg: alg)) == (401, "invalid_token"))
            }
            #expect(try await Self.put(api, app, try await app.sign(claims)).0 == 204)
        }
    }
}
