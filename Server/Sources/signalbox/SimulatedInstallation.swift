import Crypto
import Foundation
import SignalboxAPI
import SignalboxClient
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One app installation played by `simulate-device`: its SignalboxClient queue and leases over a store
/// directory, a device JWT minted the way the app's backend would, and a switch to go offline.
final class SimulatedInstallation: Sendable {
    let name: String
    let queue: SyncQueue
    let leases: Box<EnumeratorLeases?>
    let network: NetworkSwitch
    /// The registration each token belongs to, to say what a push reloads.
    let registrations = Box<[String: String]>([:])
    let user = Box<(id: String, channels: [String])>(("device", []))

    init(name: String, store: URL, url: URL, appId: String, deviceSecret: String, leaseSeconds: Int) {
        self.name = name
        network = NetworkSwitch(URLSessionTransport(timeout: 5))
        let user = self.user
        let credentials = DeviceCredentials { [appId] in
            let (id, channels) = user.value
            return DeviceCredential(token: Self.mint(userId: id, channels: channels, appId: appId, secret: deviceSecret))
        }
        queue = SyncQueue(
            configuration: SyncQueue.Configuration(baseURL: url, appId: appId), store: FileSyncStore(directory: store),
            credentials: credentials, transport: network
        )
        leases = Box(EnumeratorLeases(queue: queue, leaseSeconds: leaseSeconds))
    }

    /// A device JWT (HS256 over the device secret's UTF-8 bytes), as the app's backend mints it.
    static func mint(userId: String, channels: [String], appId: String, secret: String) -> String {
        func encode(_ object: [String: Any]) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = ["sub": userId, "aud": appId, "iat": now, "exp": now + 3600, "channels": channels]
        let input = encode(["alg": "HS256", "typ": "JWT"]) + "." + encode(claims)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return input + "." + Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What a push to `token` with `payload` makes the device reload, in words.
    func describe(token: String, pushType: String, payload: String) -> String {
        let what = registrations.value[token] ?? "unknown token \(token)"
        guard pushType == "fileprovider",
            let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
            let container = object["container-identifier"] as? String
        else { return "\(what) reloaded" }
        let name = container == EnumeratorLeases.workingSet ? "the working set" : container
        return "File Provider domain \(object["domain"] as? String ?? "?"): would enumerate changes in \(name)"
    }
}
