import Foundation
import Hummingbird
@testable import SignalboxAPI
import SignalboxServer
import Testing

/// The hand-written OpenAPI document against the code: every route documented and no more, every request
/// type's fields and every answer's fields as its schema says, and the document served as written.
/// (schemathesis, run by `scripts/test`, checks the running server's answers against it.)
struct OpenAPIDocumentTests {
    /// Read from the file each time (`[String: Any]` cannot be a shared constant under strict concurrency).
    static var document: [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SignalboxServer/OpenAPI/openapi.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    static func schema(_ name: String) -> [String: Any] {
        ((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?[name] as? [String: Any] ?? [:]
    }

    static func properties(_ schema: [String: Any]) -> Set<String> {
        Set((schema["properties"] as? [String: Any] ?? [:]).keys)
    }

    @Test func servedDocumentIsTheFile() async throws {
        #expect(Self.document["openapi"] as? String == "3.1.0")
        try await Harness.make().run { api in
            let reply = try await api.call(.get, "/openapi.json", key: nil)
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "application/json")
            #expect(NSDictionary(dictionary: try #require(reply.json)).isEqual(to: Self.document))
        }
    }

    @Test func everyRouteIsDocumentedAndNothingElse() async throws {
        let harness = try await Harness.make()
        let routes = Set(buildRouter(harness.dependencies).routes.map { route in
            let path = route.path.description.split(separator: "/").map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }
            return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
        }.filter { !$0.contains(" /dashboard") })  // the dashboard's HTML pages are not the API
        let paths = Self.document["paths"] as? [String: [String: Any]] ?? [:]
        let documented = Set(paths.flatMap { path, item in
            item.keys.filter { $0 != "parameters" }.map { "\($0.uppercased()) \(path)" }
        })
        #expect(routes.count >= 25)
        #expect(routes == documented, "only in the router: \(routes.subtracting(documented)); only documented: \(documented.subtracting(routes))")
        try await harness.run { _ in }
    }

    /// A documented path with another method is 405 with the allowed ones; an unknown path stays 404.
    @Test func otherMethodsAreNotAllowed() async throws {
        try await Harness.make().run { api in
            let trace = try await api.call(.trace, "/healthz", key: nil)
            #expect(trace.status == 405 && trace.errorCode == "method_not_allowed" && trace.headers[.allow] == "GET")
            let patch = try await api.call(.patch, "/v1/apps/some-app", key: Harness.adminKey)
            #expect(patch.status == 405 && patch.headers[.allow] == "DELETE, GET")
            #expect(try await api.call(.get, "/v1/nothing-here", key: nil).status == 404)
            #expect(try await api.call(.get, "/v1/apps/a/installations/i/widgets", key: nil).status == 405)
        }
    }

    static let requestTypes: [(String, [String])] = [
        ("CreateAppRequest", CreateAppRequest.CodingKeys.allCases.map(\.rawValue)),
        ("DeviceSecretRotation", DeviceSecretRotation.CodingKeys.allCases.map(\.rawValue)),
        ("DeviceTokenSettings", DeviceTokenSettings.CodingKeys.allCases.map(\.rawValue)),
        ("DeliverySettings", DeliverySettings.CodingKeys.allCases.map(\.rawValue)),
        ("EventRequest", EventRequest.CodingKeys.allCases.map(\.rawValue)),
        ("Kinds", EventTarget.Kinds.CodingKeys.allCases.map(\.rawValue)),
        ("Container", EventTarget.Container.CodingKeys.allCases.map(\.rawValue)),
        ("PushRequest", PushRequest.CodingKeys.allCases.map(\.rawValue)),
        ("InstallationRequest", InstallationRequest.CodingKeys.allCases.map(\.rawValue)),
        ("Widget", Widget.CodingKeys.allCases.map(\.rawValue)),
        ("WidgetsRequest", WidgetsRequest.CodingKeys.allCases.map(\.rawValue)),
        ("Control", Control.CodingKeys.allCases.map(\.rawValue)),
        ("ControlsRequest", ControlsRequest.CodingKeys.allCases.map(\.rawValue)),
        ("FileProviderDomain", FileProviderDomain.CodingKeys.allCases.map(\.rawValue)),
        ("FileProviderRequest", FileProviderRequest.CodingKeys.allCases.map(\.rawValue)),
        ("EnumeratorRequest", EnumeratorRequest.CodingKeys.allCases.map(\.rawValue)),
        ("SigningKeyRequest", SigningKeyRequest.CodingKeys.allCases.map(\.rawValue)),
        ("CredentialCheckRequest", SigningKeyRequest.CodingKeys.allCases.map(\.rawValue)),
    ]

    /// A request schema lists exactly the fields the decoder accepts, and is closed as the decoder is.
    @Test(arguments: requestTypes)
    func requestSchemaMatchesTheDecoder(name: String, fields: [String]) {
        let schema = Self.schema(name)
        #expect(Self.properties(schema) == Set(fields), "\(name)")
        #expect(schema["additionalProperties"] as? Bool == false, "\(name) is closed")
    }

    static let date = Date(timeIntervalSince1970: 1_795_476_040.25)
    static let app = AppResponse(
        appId: "a", bundleId: "com.example.app", teamId: "TEAM123456", keyId: "KEY1234567", environment: "sandbox", createdAt: date
    )
    static let answers: [(String, any Encodable & Sendable)] = [
        ("App", app),
        ("AppCreated", AppCreatedResponse(app: app, serverKey: "sbk_x", deviceSecret: "sbd_x")),
        ("ServerKey", ServerKeyResponse(appId: "a", serverKey: "sbk_x")),
        ("DeviceSecret", DeviceSecretResponse(appId: "a", deviceSecret: "sbd_x", previousSecretValidUntil: date)),
        ("DeviceTokenSettings", DeviceTokenSettings(lifetimeSeconds: 60)),
        ("DeliverySettings", DeliverySettings(minimumIntervalSeconds: ["widgets": 0])),
        ("EventAccepted", EventAcceptedResponse(eventId: "e")),
        ("EventStatus", EventStatusResponse(
            eventId: "e", state: "failed", matched: 1, coalesced: 0, delivered: 0, pending: 0, failed: 1, pruned: 0, reason: "r"
        )),
        ("PushResult", PushResponse(status: 400, reason: "BadDeviceToken", apnsId: "x", outcome: "rejected")),
        ("EnumeratorLease", EnumeratorLease(domain: "d", container: "c", expiresAt: date)),
        ("Installation", InstallationResponse(
            installationId: "i", userId: "u", channels: ["c"], environment: "sandbox",
            widgets: WidgetsRequest(pushToken: "aa", widgets: [Widget(kind: "k", family: "f")]),
            controls: [Control(kind: "k", pushToken: "bb")],
            fileProvider: .init(pushToken: "cc", domains: [FileProviderDomain(id: "d", replicated: true)], enumerators: []),
            lastSeenAt: date
        )),
        ("Error", ErrorResponse(code: "invalid_field", message: "m")),
        ("SigningKeys", SigningKeysResponse(appId: "a", keys: [.init(environment: "sandbox", teamId: "TEAM123456", keyId: "KEY1234567", environmentOnly: true)])),
        ("CredentialCheck", CredentialCheckResponse(good: true, results: [.init(
            environment: "sandbox", teamId: "TEAM123456", keyId: "KEY1234567", good: true, status: 400, reason: "BadDeviceToken", explanation: "e"
        )])),
    ]

    /// An answer, with every optional field present, has exactly its schema's fields, required ones included,
    /// and dates as ISO 8601 strings.
    @Test(arguments: answers.map(\.0))
    func answerMatchesItsSchema(name: String) throws {
        let value = try #require(Self.answers.first { $0.0 == name }?.1)
        let json = try #require(
            try JSONSerialization.jsonObject(with: SignalboxJSON.makeEncoder().encode(value)) as? [String: Any]
        )
        let schema = Self.schema(name)
        #expect(Set(json.keys) == Self.properties(schema), "\(name)")
        #expect(Set(schema["required"] as? [String] ?? []).isSubset(of: json.keys), "\(name)")
        for (key, property) in schema["properties"] as? [String: [String: Any]] ?? [:] where property["format"] as? String == "date-time" {
            #expect(json[key] as? String == "2026-11-23T23:20:40.250Z", "\(name).\(key)")
        }
    }
}
