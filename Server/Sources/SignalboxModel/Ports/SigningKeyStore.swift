import Foundation

/// An app's APNs signing keys: its own key (the `apps` row) serves every environment that has no key of its own;
/// Apple's console issues keys restricted to sandbox or production, so an app may hold one per environment.
public protocol SigningKeyStore: Sendable {
    /// Replaces the app's key for one environment or, with `environment` nil, its own key, dropping the keys of
    /// single environments (one key for all again). - Returns: whether the app exists.
    func replaceSigningKey(appId: String, environment: Environment?, _ key: StoredSigningKey) async throws -> Bool
    /// The keys the app holds for single environments (none: its own key serves both).
    func environmentSigningKeys(appId: String) async throws -> [Environment: StoredSigningKey]
}

/// A signing key as stored: its ids and its sealed `.p8`.
public struct StoredSigningKey: Sendable, Hashable {
    public var teamId: String
    public var keyId: String
    public var sealedPrivateKey: [UInt8]

    public init(teamId: String, keyId: String, sealedPrivateKey: [UInt8]) {
        self.teamId = teamId
        self.keyId = keyId
        self.sealedPrivateKey = sealedPrivateKey
    }
}
