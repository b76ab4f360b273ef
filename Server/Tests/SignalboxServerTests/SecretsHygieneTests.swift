import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Security, "Secrets": responses that carry a secret are never cached.
@Suite struct SecretsHygieneTests {
    @Test func secretCarryingResponsesSayNoStore() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let created = try await Self.cacheControl(api, .post, "/v1/apps", body: Self.createBody)
            #expect(created.status == 201 && created.cacheControl == "no-store")
            let rotated = try await Self.cacheControl(api, .post, "/v1/apps/\(app.id)/server-key", body: nil)
            #expect(rotated.status == 200 && rotated.cacheControl == "no-store")
            let listed = try await Self.cacheControl(api, .get, "/v1/apps", body: nil)
            #expect(listed.cacheControl == "no-store")
        }
    }

    static var createBody: String {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        return #"{"bundleId":"com.example.other","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox","privateKey":\#(jsonString(pem))}"#
    }

    static func cacheControl(_ api: APIClient, _ method: HTTPRequest.Method, _ path: String, body: String?) async throws -> (status: Int, cacheControl: String?) {
        let reply = try await api.client.send(
            method, path, headers: [.authorization: "Bearer " + Harness.adminKey, .contentType: "application/json"],
            body: body.map { ByteBuffer(string: $0) }
        )
        return (reply.status, reply.headers[.cacheControl])
    }
}
