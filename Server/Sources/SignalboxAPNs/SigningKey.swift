import Crypto
import Foundation

/// An APNs auth key (`.p8`) with its key id and team id: what a provider token is signed with.
public struct SigningKey: Sendable {
    /// The 10-character Team ID (`iss`).
    public let teamId: String
    /// The 10-character Key ID (`kid`).
    public let keyId: String
    let privateKey: P256.Signing.PrivateKey
    /// Tells keys apart that claim the same ids (a misconfigured app): the first 8 bytes of the public key's
    /// SHA-256, in hex.
    public let fingerprint: String

    /// Reads a `.p8` PEM (PKCS#8, EC P-256).
    /// - Throws: `SigningKey.Invalid` when the PEM is not a P-256 private key or the ids look wrong.
    public init(pem: String, keyId: String, teamId: String) throws(Invalid) {
        guard Self.isAppleId(keyId) else { throw Invalid(message: "key id must be 10 upper-case letters or digits") }
        guard Self.isAppleId(teamId) else { throw Invalid(message: "team id must be 10 upper-case letters or digits") }
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw Invalid(message: "private key is not a P-256 PEM (.p8) key")
        }
        self.keyId = keyId
        self.teamId = teamId
        fingerprint = Self.fingerprint(of: privateKey)
    }

    /// Wraps an existing key (tests, generated keys).
    public init(privateKey: P256.Signing.PrivateKey, keyId: String, teamId: String) {
        self.privateKey = privateKey
        self.keyId = keyId
        self.teamId = teamId
        fingerprint = Self.fingerprint(of: privateKey)
    }

    private static func fingerprint(of key: P256.Signing.PrivateKey) -> String {
        Hex.encode(SHA256.hash(data: key.publicKey.rawRepresentation).prefix(8))
    }

    /// The public half, as APNs (or the simulator) uses to verify signatures.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// Signs a provider token issued at `issuedAt`.
    public func providerToken(issuedAt: Date) -> ProviderToken {
        let header = #"{"alg":"ES256","kid":"\#(keyId)"}"#
        let claims = #"{"iss":"\#(teamId)","iat":\#(Int64(issuedAt.timeIntervalSince1970))}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        // Signing with a valid P-256 key does not fail.
        let signature = (try? privateKey.signature(for: Data(signingInput.utf8)))!
        let jwt = signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
        return ProviderToken(jwt: jwt, issuedAt: issuedAt)
    }

    static func isAppleId(_ value: String) -> Bool {
        value.utf8.count == 10 && value.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
    }

    /// Why a key cannot be used; the message never contains key material.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}

/// A signed provider JWT and the moment it was issued.
public struct ProviderToken: Sendable, Hashable {
    /// `header.claims.signature`, sent as `authorization: bearer <jwt>`.
    public let jwt: String
    public let issuedAt: Date
    /// The `authorization` header value, built once: every push signed with the token sends it.
    public let bearer: String

    public init(jwt: String, issuedAt: Date) {
        self.jwt = jwt
        self.issuedAt = issuedAt
        bearer = "bearer " + jwt
    }
}

/// Unpadded base64url (RFC 4648 §5), as JWS uses.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
