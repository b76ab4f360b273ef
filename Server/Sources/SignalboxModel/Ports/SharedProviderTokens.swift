import Foundation

/// One provider token per signing key for every instance on a database (`apns.md` §3.4: one current token shared
/// by all connections and all provider processes). Tokens are kept sealed: the store never sees a usable JWT.
public protocol SharedProviderTokens: Sendable {
    /// The key's shared token: the stored one while it was issued less than `maxAge` before `now`, else the one
    /// `mint` makes, stored for the others. Instances mint one at a time; one that waited gets the new token.
    func sharedProviderToken(
        key: SigningKeyID, now: Date, maxAge: Duration, mint: @escaping @Sendable () throws -> SealedProviderToken
    ) async throws -> SealedProviderToken
}

/// A signing key as APNs and our pools tell keys apart.
public struct SigningKeyID: Sendable, Hashable {
    public var teamId: String
    public var keyId: String
    /// Two keys claiming the same ids are kept apart.
    public var fingerprint: String

    public init(teamId: String, keyId: String, fingerprint: String) {
        self.teamId = teamId
        self.keyId = keyId
        self.fingerprint = fingerprint
    }
}

/// A provider token as stored: sealed, with its issue time in the clear so age can be judged without opening it.
public struct SealedProviderToken: Sendable, Hashable {
    public var sealed: [UInt8]
    public var issuedAt: Date

    public init(sealed: [UInt8], issuedAt: Date) {
        self.sealed = sealed
        self.issuedAt = issuedAt
    }
}
