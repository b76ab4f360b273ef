import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SignalboxDashboard
import SignalboxServer
import SignalboxStore
import SignalboxTestSupport
import Synchronization
import Testing

/// The API on an in-memory SQLite store, exercised through HummingbirdTesting's router client.
struct Harness {
    static let adminKey = "sba_test-admin-key-0123456789abcdef"
    let dependencies: APIDependencies
    let clock: TestClock
    /// The stores' database, closed when `run` ends.
    let database: SQLStores

    /// A fresh server; `now` is the clock the API sees.
    /// - Parameters:
    ///   - masterKey: seals the stored secrets (random when absent).
    ///   - store: the storage (new in-memory SQLite stores when absent).
    static func make(
        masterKey: [UInt8]? = nil, store: SQLStores? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> Harness {
        var configuration = ServerConfiguration()
        // An in-process receiver can answer seconds late in a full run on 2 cores: deadlines only a hang reaches.
        configuration.webhooks.requestTimeout = .seconds(60)
        configuration.webhooks.claimLease = .seconds(120)
        configure(&configuration)
        // Everything that can throw comes before the store is opened: `run` closes it.
        let secrets = try SecretBox(masterKey: masterKey ?? Secret.randomBytes(32))
        let store = if let store { store } else { try await SQLStores.sqlite(path: nil, logger: Logger(label: "test.store")) }
        let clock = TestClock(Date())
        let harness = Harness(
            dependencies: APIDependencies(
                configuration: configuration, stores: store.ports, adminKey: adminKey, secrets: secrets, now: { clock.now }
            ),
            clock: clock, database: store
        )
        return harness
    }

    func advance(seconds: Double) { clock.advance(seconds: seconds) }

    /// Runs `body` against the router.
    func run(_ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        let app = Application(router: buildRouter(dependencies, extensions: [Dashboard()]), logger: Logger(label: "test.api"))
        do {
            try await app.test(.router) { client in try await body(APIClient(client: RouterSender(client: client))) }
        } catch {
            try? await database.close()
            throw error
        }
        try await database.close()
    }
}

/// One HTTP exchange with the server under test: through HummingbirdTesting's router, or over a live connection.
protocol RequestSender: Sendable {
    func send(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> SentReply
}

struct SentReply: Sendable {
    let status: Int
    let headers: HTTPFields
    let body: ByteBuffer
}

/// Sends through HummingbirdTesting's client (the router, no network).
struct RouterSender: RequestSender {
    let client: any TestClientProtocol

    func send(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> SentReply {
        try await client.execute(uri: path, method: method, headers: headers, body: body) {
            SentReply(status: Int($0.status.code), headers: $0.headers, body: $0.body)
        }
    }
}

/// Sends JSON requests with a bearer credential and returns status and parsed body.
struct APIClient: Sendable {
    let client: any RequestSender

    struct Reply: Sendable {
        let status: Int
        let body: String
        var headers: HTTPFields = [:]
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String? { (json?["error"] as? [String: Any])?["message"] as? String }
    }

    @discardableResult
    func call(_ method: HTTPRequest.Method, _ path: String, key: String?, json: String? = nil, headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers.append(contentsOf: extra)
        if let key { headers[.authorization] = "Bearer " + key }
        let reply = try await client.send(method, path, headers: headers, body: json.map { ByteBuffer(string: $0) })
        return Reply(status: reply.status, body: String(buffer: reply.body), headers: reply.headers)
    }

    /// Creates an app (with its own new key unless `privateKey` is given) and returns its id, server key and device secret.
    func createApp(bundleId: String = "com.example.garage", privateKey: P256.Signing.PrivateKey = .init(), keyId: String = "KEY1234567") async throws -> TestApp {
        let pem = privateKey.pemRepresentation
        let body = #"{"bundleId":"\#(bundleId)","teamId":"TEAM123456","keyId":"\#(keyId)","environment":"sandbox","privateKey":\#(jsonString(pem))}"#
        let reply = try await call(.post, "/v1/apps", key: Harness.adminKey, json: body)
        #expect(reply.status == 201, "\(reply.body)")
        let json = try #require(reply.json)
        return TestApp(
            id: try #require(json["appId"] as? String), serverKey: try #require(json["serverKey"] as? String),
            deviceSecret: try #require(json["deviceSecret"] as? String)
        )
    }
}

struct TestApp: Sendable {
    let id: String
    let serverKey: String
    let deviceSecret: String

    /// A device JWT (HS256 over the device secret) for `userId`.
    func deviceToken(userId: String, audience: String? = nil, expiresIn: TimeInterval = 3600, secret: String? = nil, now: Date = Date()) -> String {
        func encode(_ object: [String: Any]) -> String {
            base64URL(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = encode(["alg": "HS256", "typ": "JWT"]) + "." + encode(["sub": userId, "aud": audience ?? id, "exp": Int(now.timeIntervalSince1970 + expiresIn)])
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data((secret ?? deviceSecret).utf8)))
        return input + "." + base64URL(Data(signature))
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

func jsonString(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}

let token64 = String(repeating: "ab", count: 32)

