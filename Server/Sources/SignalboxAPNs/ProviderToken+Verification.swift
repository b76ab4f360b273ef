import Crypto
import Foundation

extension ProviderToken {
    /// The parts of a provider JWT that APNs checks.
    public struct Parsed: Sendable, Hashable {
        public var algorithm: String
        public var keyId: String
        public var teamId: String
        public var issuedAt: Date
        /// `header.claims`, the signed bytes.
        public var signingInput: String
        /// The raw 64-byte R‖S signature (a DER signature is also accepted and converted).
        public var signature: [UInt8]

        /// Whether `publicKey` verifies the signature.
        public func isSigned(by publicKey: P256.Signing.PublicKey) -> Bool {
            let signature: P256.Signing.ECDSASignature?
            if self.signature.count == 64 {
                signature = try? P256.Signing.ECDSASignature(rawRepresentation: self.signature)
            } else {
                signature = try? P256.Signing.ECDSASignature(derRepresentation: self.signature)
            }
            guard let signature else { return false }
            return publicKey.isValidSignature(signature, for: Data(signingInput.utf8))
        }
    }

    /// Parses a compact JWS provider token without verifying it.
    /// - Returns: `nil` when it is not three base64url parts with the header and claims APNs requires.
    public static func parse(_ jwt: some StringProtocol) -> Parsed? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let claimsBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimsBytes))
        else { return nil }
        return Parsed(
            algorithm: header.alg,
            keyId: header.kid,
            teamId: claims.iss,
            issuedAt: Date(timeIntervalSince1970: claims.iat),
            signingInput: parts[0] + "." + parts[1],
            signature: signature
        )
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    private struct Claims: Decodable {
        var iss: String
        var iat: Double
    }
}
