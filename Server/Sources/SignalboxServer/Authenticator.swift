import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import SignalboxModel

/// Who is calling.
enum Principal: Sendable, Equatable {
    case admin
    /// An app's backend, with its server key.
    case server(appId: String)
    /// An app on a device, with a device JWT naming its user and the channels its backend vouched for.
    case device(appId: String, userId: String, channels: [String])

    var isDevice: Bool {
        if case .device = self { true } else { false }
    }
}

/// Resolves `Authorization: Bearer …` to a principal; never logs or echoes what it was given.
///
/// A credential of the wrong shape (neither a JWT of three canonical base64url parts nor a server key
/// `sbk_` + 43 base64url characters) is refused before storage is touched.
package struct Authenticator: Sendable {
    /// Clock skew allowed on `exp`, `nbf` and `iat`, both ways.
    static let leeway: TimeInterval = 60

    let adminKeyHash: [UInt8]
    /// The hash of the key `/metrics` asks for; nil: `/metrics` is open.
    let metricsKeyHash: [UInt8]?
    let apps: AppCache
    let secrets: SecretBox
    let now: @Sendable () -> Date
    private let deviceKeys = DeviceKeys()

    init(adminKey: String, metricsKey: String? = nil, apps: AppCache, secrets: SecretBox, now: @escaping @Sendable () -> Date) {
        adminKeyHash = Array(SHA256.hash(data: Data(adminKey.utf8)))
        metricsKeyHash = metricsKey.map { Array(SHA256.hash(data: Data($0.utf8))) }
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

    /// `/metrics`: open without a configured metrics key, else that key alone (not the admin key, so a scraper
    /// holds a key that can do nothing else). - Throws: 401.
    func requireMetricsAccess(_ request: Request) throws {
        guard let metricsKeyHash else { return }
        guard let credential = try? bearer(request),
              Secret.constantTimeEquals(Array(SHA256.hash(data: Data(credential.utf8))), metricsKeyHash)
        else {
            throw APIError(.unauthorized, "unauthorized", "/metrics needs Authorization: Bearer <metrics key> (metricsKey, SIGNALBOX_METRICS_KEY)")
        }
    }

    /// The app's server or one of its devices, or a 401/403; the admin key is refused here.
    func requireAppAccess(_ request: Request, appId: String, deviceAllowed: Bool) async throws -> Principal {
        let credential = try bearer(request)
        if isAdminKey(credential) {
            throw APIError(.forbidden, "forbidden", "the admin key manages apps; use the app's server key here")
        }
        switch CredentialShape(credential) {
        case .deviceToken(let parts):
            let claims = try await verifyDeviceToken(credential, parts: parts, appId: appId)
            guard deviceAllowed else { throw APIError(.forbidden, "forbidden", "this endpoint needs the app's server key") }
            return .device(appId: appId, userId: claims.sub.value, channels: claims.channels ?? [])
        case .serverKey:
            guard let app = try await apps.app(serverKeyHash: Secret.hash(credential)) else { throw APIError.unauthorized }
            guard app.id == appId else { throw APIError(.forbidden, "forbidden", "this server key belongs to another app") }
            return .server(appId: appId)
        case .malformedToken:
            throw Self.invalidToken("the device token is not a JWT of three canonical base64url parts")
        case .unknown:
            throw APIError.unauthorized
        }
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

    /// Checks a device JWT for `appId` (design.md "Security": HS256 only; `sub`, `aud`, `exp` required; `aud` a
    /// string or an array holding the app id; `exp` at most the app's lifetime ahead; `nbf` and `iat` honoured;
    /// 60 s leeway) and returns its claims. The signature is checked by jwt-kit, with the app's device secret
    /// and, during a rotation's grace period, the previous one.
    private func verifyDeviceToken(_ jwt: String, parts: [Substring], appId: String) async throws -> DeviceClaims {
        // Header and claims are read before any storage access: a token for another app or algorithm is
        // refused at once (the claims are trusted only after the signature check below).
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(Base64URL.decode(parts[0]))) else {
            throw Self.invalidToken("the device token's header is not JSON with an alg")
        }
        guard header.alg == "HS256" else { throw Self.invalidToken("the device token must be signed with HS256") }
        guard let unverified = try? DeviceClaims.decoder.decode(DeviceClaims.self, from: Data(Base64URL.decode(parts[1]))) else {
            throw Self.invalidToken("the device token needs sub and aud (strings), exp (a number) and channels, if any, as an array of strings")
        }
        guard unverified.aud.value.contains(appId) else { throw APIError(.forbidden, "forbidden", "the device token is for another app") }

        guard let app = try await apps.app(id: appId) else { throw Self.invalidToken("the device token's app is unknown") }
        let now = now()
        // A secret that does not unseal (bound to another app or column) verifies nothing: the token is refused.
        var claims = try? await deviceKeys.keys(appId: appId, column: .deviceSecret, sealed: app.sealedDeviceSecret, secrets: secrets)
            .verify(jwt, as: DeviceClaims.self)
        if claims == nil, let previous = app.previousSealedDeviceSecret, let until = app.previousDeviceSecretExpiresAt, now < until {
            claims = try? await deviceKeys.keys(appId: appId, column: .previousDeviceSecret, sealed: previous, secrets: secrets)
                .verify(jwt, as: DeviceClaims.self)
        }
        guard let claims else { throw Self.invalidToken("the device token's signature is not valid for this app") }
        try Self.checkTimes(claims, now: now, lifetime: TimeInterval(app.deviceTokenLifetime))
        guard !claims.sub.value.isEmpty else { throw Self.invalidToken("the device token has an empty sub") }
        return claims
    }

    /// `exp` not past and at most `lifetime` ahead, `nbf` reached, `iat` not in the future; `leeway` each way.
    static func checkTimes(_ claims: DeviceClaims, now: Date, lifetime: TimeInterval) throws {
        do {
            try claims.exp.verifyNotExpired(currentDate: now.addingTimeInterval(-leeway))
        } catch {
            throw APIError(.unauthorized, "token_expired", "the device token has expired")
        }
        guard claims.exp.value <= now.addingTimeInterval(lifetime + leeway) else {
            throw invalidToken("the device token's exp is further ahead than this app's device-token lifetime (\(Int(lifetime)) s)")
        }
        if let nbf = claims.nbf {
            do {
                try nbf.verifyNotBefore(currentDate: now.addingTimeInterval(leeway))
            } catch {
                throw invalidToken("the device token is not valid yet (nbf)")
            }
        }
        if let iat = claims.iat, iat.value > now.addingTimeInterval(leeway) {
            throw invalidToken("the device token was issued in the future (iat)")
        }
    }

    static func invalidToken(_ message: String) -> APIError { APIError(.unauthorized, "invalid_token", message) }

    private struct Header: Decodable { var alg: String }
}

/// The claims of a device JWT. Times are checked by `Authenticator.checkTimes` against the injected clock.
struct DeviceClaims: JWTPayload {
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    /// The channels the app's backend lets this user put on an installation.
    var channels: [String]?

    /// Decodes as jwt-kit's default parser does (NumericDate as seconds since 1970).
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    func verify(using algorithm: some JWTAlgorithm) async throws {
        // Nothing here: `exp`, `nbf` and `iat` need the server's clock and the app's lifetime.
    }
}

extension Authenticator {
    /// Who a key signs in to the dashboard as: the admin, an app (by its current server key), or nobody.
    package func dashboardOwner(key: String) async throws -> DashboardSessionRecord.Owner? {
        guard !key.isEmpty, key.utf8.count <= 4096 else { return nil }
        if Secret.constantTimeEquals(Array(SHA256.hash(data: Data(key.utf8))), adminKeyHash) { return .admin }
        guard case .serverKey = CredentialShape(key) else { return nil }
        let hash = Secret.hash(key)
        return try await apps.app(serverKeyHash: hash).map { .app(id: $0.id, serverKeyHash: hash) }
    }
}
