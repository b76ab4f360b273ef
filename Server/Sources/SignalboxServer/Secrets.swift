import Crypto
import Foundation
import SignalboxAPNs
import SignalboxModel

/// Seals secrets at rest with AES-256-GCM under the master key. A sealed value is bound to its app and column
/// (they are the associated data) and starts with a version byte: moved to another app or column, it no
/// longer opens.
public struct SecretBox: Sendable {
    private let key: SymmetricKey

    /// The first byte of a value sealed with its app and column as associated data.
    static let version: UInt8 = 1

    /// Where a sealed value lives: part of what it is bound to.
    public enum Column: String, Sendable, CaseIterable {
        case privateKey = "sealed_private_key"
        case deviceSecret = "sealed_device_secret"
        case previousDeviceSecret = "previous_sealed_device_secret"
        /// A provider token shared between instances; sealed for its signing key (`appId` names the key).
        case providerToken = "provider_tokens.sealed_token"
        /// A webhook endpoint's signing secret (`appId` is `<app>/<endpoint>`), and the one before its last rotation.
        case webhookSecret = "webhook_endpoints.sealed_secret"
        case previousWebhookSecret = "webhook_endpoints.previous_sealed_secret"

        /// An app's key for sandbox or production only.
        case sandboxPrivateKey = "app_signing_keys.sandbox"
        case productionPrivateKey = "app_signing_keys.production"

        /// The column of an app's key for `environment` alone.
        static func privateKey(for environment: Environment) -> Column {
            environment == .sandbox ? .sandboxPrivateKey : .productionPrivateKey
        }
    }

    /// A sealed value that does not open: another key, app or column, or damaged.
    public struct OpenError: Error, Sendable {}

    /// - Parameter masterKey: 32 bytes.
    public init(masterKey: [UInt8]) throws(ConfigurationError) {
        guard masterKey.count == 32 else { throw ConfigurationError("the master key must be 32 bytes (base64 of 32 random bytes)") }
        key = SymmetricKey(data: masterKey)
    }

    /// Seals `plaintext` for `column` of app `appId`: the version byte, then nonce, ciphertext and tag.
    public func seal(_ plaintext: String, appId: String, column: Column) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(plaintext.utf8), using: key, authenticating: Self.associatedData(appId: appId, column: column))
        guard let combined = box.combined else { throw OpenError() }
        return [Self.version] + Array(combined)
    }

    /// Opens a value sealed by `seal(_:appId:column:)` for the same app and column.
    /// - Throws: `OpenError` for anything else, legacy values included.
    public func open(_ sealed: [UInt8], appId: String, column: Column) throws -> String {
        guard sealed.first == Self.version else { throw OpenError() }
        do {
            let box = try AES.GCM.SealedBox(combined: Data(sealed.dropFirst()))
            return String(decoding: try AES.GCM.open(box, using: key, authenticating: Self.associatedData(appId: appId, column: column)), as: UTF8.self)
        } catch {
            throw OpenError()
        }
    }

    /// Opens a value sealed before values were bound (no version byte, no associated data); only re-sealing
    /// at start reads these.
    func openLegacy(_ sealed: [UInt8]) throws -> String {
        do {
            return String(decoding: try AES.GCM.open(AES.GCM.SealedBox(combined: Data(sealed)), using: key), as: UTF8.self)
        } catch {
            throw OpenError()
        }
    }

    private static func associatedData(appId: String, column: Column) -> Data {
        Data("signalbox:\(appId):\(column.rawValue)".utf8)
    }
}

/// Random secrets and how they are kept.
public enum Secret {
    /// A random secret: a prefix and 32 random bytes in base64url (e.g. `sbk_…`).
    public static func generate(prefix: String) -> String {
        prefix + base64URL(randomBytes(32))
    }

    /// SHA-256 hex of a key; keys are stored only this way.
    public static func hash(_ key: String) -> String {
        Hex.encode(SHA256.hash(data: Data(key.utf8)))
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Compares without an early exit, so timing reveals nothing.
    package static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Configuration that cannot be used; the message names the setting, never its value.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
