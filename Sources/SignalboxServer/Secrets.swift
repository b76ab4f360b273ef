import Crypto
import Foundation
import SignalboxAPNs

/// Seals secrets at rest with AES-256-GCM under the master key.
public struct SecretBox: Sendable {
    private let key: SymmetricKey

    /// - Parameter masterKey: 32 bytes.
    public init(masterKey: [UInt8]) throws(ConfigurationError) {
        guard masterKey.count == 32 else { throw ConfigurationError("the master key must be 32 bytes (base64 of 32 random bytes)") }
        key = SymmetricKey(data: masterKey)
    }

    public func seal(_ plaintext: String) throws -> [UInt8] {
        Array(try AES.GCM.seal(Data(plaintext.utf8), using: key).combined ?? Data())
    }

    public func open(_ sealed: [UInt8]) throws -> String {
        String(decoding: try AES.GCM.open(AES.GCM.SealedBox(combined: Data(sealed)), using: key), as: UTF8.self)
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
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Configuration that cannot be used; the message names the setting, never its value.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
