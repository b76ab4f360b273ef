import Crypto
import Foundation
import JWTKit

/// Claims a test puts in a device JWT, each optional and loosely typed so that odd tokens can be made
/// (an `aud` array, an `exp` of 1e308, no `sub`).
struct TestClaims: JWTPayload {
    enum Audience: Codable, Sendable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                self = .one(one)
            } else {
                self = .many(try container.decode([String].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let value): try container.encode(value)
            case .many(let values): try container.encode(values)
            }
        }
    }

    var sub: String?
    var aud: Audience?
    var exp: Double?
    var nbf: Double?
    var iat: Double?
    var channels: [String]?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension TestApp {
    /// Claims for `userId` of this app, expiring `expiresIn` after `now`.
    func claims(userId: String = "u1", now: Date, expiresIn: TimeInterval = 3600, channels: [String]? = nil) -> TestClaims {
        TestClaims(sub: userId, aud: .one(id), exp: now.timeIntervalSince1970 + expiresIn, channels: channels)
    }

    /// A device JWT signed by jwt-kit with HS256 over `secret` (the app's device secret by default); `alg`
    /// overrides the header's algorithm name without changing the signature.
    func sign(_ claims: TestClaims, secret: String? = nil, alg: String? = nil) async throws -> String {
        try await signHS256(claims, secret: secret ?? deviceSecret, alg: alg)
    }
}

/// A JWT signed by jwt-kit with HS256 over the UTF-8 bytes of `secret` (at least 32 bytes).
func signHS256(_ claims: TestClaims, secret: String, alg: String? = nil) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    var header = JWTHeader()
    if let alg { header.alg = alg }
    return try await keys.sign(claims, header: header)
}

/// A JWT signed by jwt-kit with a new ES256 key.
func signES256(_ claims: TestClaims) async throws -> String {
    let keys = JWTKeyCollection()
    await keys.add(ecdsa: ES256PrivateKey())
    return try await keys.sign(claims)
}

extension TestApp {
    /// A device JWT whose claims are `claims` as given (JSON text), signed with HS256 by swift-crypto's HMAC.
    func rawToken(claims: String) -> String {
        let input = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + base64URL(Data(claims.utf8))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(deviceSecret.utf8)))
        return input + "." + base64URL(Data(signature))
    }
}
