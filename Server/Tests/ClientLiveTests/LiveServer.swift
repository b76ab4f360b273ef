import Crypto
import Foundation
import SignalboxClient
import SignalboxClientTesting
import SignalboxTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `signalbox serve` child process with one app, for the SDK's tests against the real server.
final class LiveServer {
    static let adminKey = "sba_client-tests-admin-key-0123456789abc"
    let process: ChildProcess
    let base: URL
    let appId: String
    let serverKey: String
    let deviceSecret: String
    let directory: String

    /// - Parameter arguments: more options of `serve` (`--apns-simulator` to deliver pushes).
    static func start(arguments: [String] = []) async throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-client-server-\(UUID().uuidString)").path
        let process = try ChildProcess(["serve", "--port", "0", "--data-dir", directory] + arguments, environment: ["SIGNALBOX_ADMIN_KEY": adminKey])
        do {
            let port = try await process.waitFor(#"listening on 127\.0\.0\.1:(\d+)"#)
            return try await started(process, port: port, directory: directory)
        } catch {
            process.kill()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Creates the app on the server listening on `port`.
    private static func started(_ process: ChildProcess, port: String, directory: String) async throws -> LiveServer {
        let base = URL(string: "http://127.0.0.1:\(port)")!
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let body = try JSONSerialization.data(withJSONObject: [
            "bundleId": "com.example.garage", "teamId": "TEAM123456", "keyId": "KEY1234567", "environment": "sandbox", "privateKey": pem,
        ])
        let (status, json) = try await call(base, "POST", "/v1/apps", key: adminKey, body: body)
        guard status == 201, let appId = json["appId"] as? String, let serverKey = json["serverKey"] as? String,
            let deviceSecret = json["deviceSecret"] as? String
        else { throw LiveServerError(message: "app not created: \(status) \(json)") }
        return LiveServer(process: process, base: base, appId: appId, serverKey: serverKey, deviceSecret: deviceSecret, directory: directory)
    }

    private init(process: ChildProcess, base: URL, appId: String, serverKey: String, deviceSecret: String, directory: String) {
        self.process = process
        self.base = base
        self.appId = appId
        self.serverKey = serverKey
        self.deviceSecret = deviceSecret
        self.directory = directory
    }

    /// Ends the server (a test that threw before its `defer { stop() }` still ends it: `ChildProcess` does on release).
    func stop() {
        process.kill(SIGTERM)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The installation as the server holds it (server key).
    func installation(_ id: String) async throws -> (status: Int, json: [String: Any]) {
        try await Self.call(base, "GET", "/v1/apps/\(appId)/installations/\(id)", key: serverKey)
    }

    func delete(installation id: String) async throws -> Int {
        try await Self.call(base, "DELETE", "/v1/apps/\(appId)/installations/\(id)", key: serverKey).status
    }

    /// Mints device JWTs for `userId`, as the app's backend would.
    func credentials(userId: String, channels: [String]) -> DeviceCredentials {
        let (appId, secret) = (appId, deviceSecret)
        return DeviceCredentials {
            DeviceCredential(token: Self.deviceToken(userId: userId, channels: channels, appId: appId, secret: secret))
        }
    }

    static func deviceToken(userId: String, channels: [String], appId: String, secret deviceSecret: String) -> String {
        func encode(_ object: [String: Any]) -> String {
            base64URL(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let now = Int(Date().timeIntervalSince1970)
        let input = encode(["alg": "HS256", "typ": "JWT"]) + "." + encode(["sub": userId, "aud": appId, "iat": now, "exp": now + 3600, "channels": channels])
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(deviceSecret.utf8)))
        return input + "." + base64URL(Data(mac))
    }

    static func call(_ base: URL, _ method: String, _ path: String, key: String, body: Data? = nil) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }
}

struct LiveServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
