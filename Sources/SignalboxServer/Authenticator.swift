import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SignalboxModel
import SignalboxStore

/// Who is calling.
enum Principal: Sendable, Equatable {
    case admin
    /// An app's backend, with its server key.
    case server(appId: String)
    /// An app on a device, with a device JWT naming its user.
    case device(appId: String, userId: String)
}

/// Resolves `Authorization: Bearer …` to a principal; never logs or echoes what it was given.
struct Authenticator: Sendable {
    let adminKeyHash: [UInt8]
    let apps: AppCache
    let secrets: SecretBox
    let now: @Sendable () -> Date

    init(adminKey: String, apps: AppCache, secrets: SecretBox, now: @escaping @Sendable () -> Date) {
        adminKeyHash = Array(SHA256.hash(data: Data(adminKey.utf8)))
        self.apps = apps
        self.secrets = secrets
        self.now = now
    }

    /// The admin, or a 401/403.
    func requireAdmin(_ request: Request) throws {
        let credential = try bearer(request)
        guard isAdminKey(credential) else {
            throw APIError(.forbidden, "forbidden", "this endpoint needs the admin key")
        }
    }

    /// The app's server or one of its devices, or a 401/403; the admin key is refused here.
    func requireAppAccess(_ request: Request, appId: String, deviceAllowed: Bool) async throws -> Principal {
        let credential = try bearer(request)
        if isAdminKey(credential) {
            throw APIError(.forbidden, "forbidden", "the admin key manages apps; use the app's server key here")
        }
        if credential.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            let userId = try await verifyDeviceToken(credential, appId: appId)
            guard deviceAllowed else { throw APIError(.forbidden, "forbidden", "this endpoint needs the app's server key") }
            return .device(appId: appId, userId: userId)
        }
        guard let app = try await apps.app(serverKeyHash: Secret.hash(credential)) else { throw APIError.unauthorized }
        guard app.id == appId else { throw APIError(.forbidden, "forbidden", "this server key belongs to another app") }
        return .server(appId: appId)
    }

    private func bearer(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") || header.hasPrefix("bearer ") else {
            throw APIError.unauthorized
        }
        // Trimmed by hand: Foundation's `trimmingCharacters(in:)` was 4.8 % of a registration's CPU.
        var credential = header.dropFirst("Bearer ".count)
        while credential.first == " " || credential.first == "\t" { credential.removeFirst() }
        while credential.last == " " || credential.last == "\t" { credential.removeLast() }
        guard !credential.isEmpty, credential.utf8.count <= 4096 else { throw APIError.unauthorized }
        return String(credential)
    }

    private func isAdminKey(_ credential: String) -> Bool {
        Secret.constantTimeEquals(Array(SHA256.hash(data: Data(credential.utf8))), adminKeyHash)
    }

    /// Checks an HS256 device JWT for `appId` and returns its `sub`.
    private func verifyDeviceToken(_ jwt: String, appId: String) async throws -> String {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard let headerBytes = Self.base64URLDecode(parts[0]), let claimsBytes = Self.base64URLDecode(parts[1]),
            let signature = Self.base64URLDecode(parts[2]),
            let header = try? JSONDecoder().decode(DeviceTokenHeader.self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode(DeviceTokenClaims.self, from: Data(claimsBytes))
        else { throw APIError(.unauthorized, "invalid_token", "the device token is not a well-formed JWT with sub, aud and exp") }
        guard header.alg == "HS256" else { throw APIError(.unauthorized, "invalid_token", "the device token must be signed with HS256") }
        guard claims.aud == appId else { throw APIError(.forbidden, "forbidden", "the device token is for another app") }
        guard let app = try await apps.app(id: appId), let secret = try? secrets.open(app.sealedDeviceSecret) else {
            throw APIError(.unauthorized, "invalid_token", "the device token's app is unknown")
        }
        let key = SymmetricKey(data: Data(secret.utf8))
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data((parts[0] + "." + parts[1]).utf8), using: key) else {
            throw APIError(.unauthorized, "invalid_token", "the device token's signature is not valid for this app")
        }
        guard claims.exp > now().timeIntervalSince1970 else { throw APIError(.unauthorized, "token_expired", "the device token has expired") }
        guard !claims.sub.isEmpty else { throw APIError(.unauthorized, "invalid_token", "the device token has an empty sub") }
        return claims.sub
    }

    private struct DeviceTokenHeader: Decodable { var alg: String }
    private struct DeviceTokenClaims: Decodable {
        var sub: String
        var aud: String
        var exp: Double
    }

    static func base64URLDecode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
