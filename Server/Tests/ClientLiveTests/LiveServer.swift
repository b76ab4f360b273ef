import Crypto
import Foundation
import SignalboxClient
import SignalboxClientTesting
import SignalboxTestSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `signalbox serve` child process with one app, for the SDK's tests against the real server.
final class LiveServer {
    static let adminKey = "sba_client-tests-admin-key-0123456789abc"
    let process: Process
    let base: URL
    let appId: String
    let serverKey: String
    let deviceSecret: String
    let directory: String

    /// The `signalbox` executable built beside the test bundle.
    static var signalbox: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("signalbox")
    }

    /// - Parameter arguments: more options of `serve` (`--apns-simulator` to deliver pushes).
    static func start(arguments: [String] = []) async throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-client-server-\(UUID().uuidString)").path
        let process = Process()
        process.executableURL = signalbox
        process.arguments = ["serve", "--port", "0", "--data-dir", directory] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["SIGNALBOX_ADMIN_KEY": adminKey]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        OrphanGuard.watch(process.processIdentifier)
        do {
            return try await started(process, output: output, directory: directory)
        } catch {
            OrphanGuard.stop(process, signal: SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Reads the port `process` listens on and creates the app. The output is read by a handler, not a blocking
    /// read: a start that takes long under load must not hold one of the few threads every test shares.
    private static func started(_ process: Process, output: Pipe, directory: String) async throws -> LiveServer {
        let startup = StartupOutput()
        // The handler keeps draining after the start, so the server never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil }
            startup.append(chunk)
        }
        let regex = try NSRegularExpression(pattern: #"listening on 127\.0\.0\.1:(\d+)"#)
        let deadline = ContinuousClock.now + .seconds(120)  // a bound for a hang
        var port: Int?
        while port == nil {
            let (printed, ended) = startup.read()
            if let match = regex.firstMatch(in: printed, range: NSRange(printed.startIndex..., in: printed)),
                let range = Range(match.range(at: 1), in: printed) {
                port = Int(printed[range])
            } else if ended || ContinuousClock.now > deadline {
                throw LiveServerError(message: "serve \(ended ? "ended" : "printed no port") early:\n\(printed)")
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        startup.stopKeeping()
        let base = URL(string: "http://127.0.0.1:\(port!)")!
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

    private init(process: Process, base: URL, appId: String, serverKey: String, deviceSecret: String, directory: String) {
        self.process = process
        self.base = base
        self.appId = appId
        self.serverKey = serverKey
        self.deviceSecret = deviceSecret
        self.directory = directory
    }

    func stop() {
        OrphanGuard.stop(process)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A test that threw before its `defer { stop() }` still ends the server.
    deinit { OrphanGuard.stop(process, signal: SIGKILL) }

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

/// What `serve` printed until it listened, and whether its output ended; kept only until the port is read.
private final class StartupOutput: Sendable {
    private let state = Mutex((text: "", ended: false, keeping: true))

    func append(_ chunk: Data) {
        state.withLock {
            if $0.keeping { $0.text += String(decoding: chunk, as: UTF8.self) }
            $0.ended = $0.ended || chunk.isEmpty
        }
    }

    func read() -> (text: String, ended: Bool) { state.withLock { ($0.text, $0.ended) } }
    func stopKeeping() { state.withLock { $0.keeping = false } }
}

struct LiveServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
