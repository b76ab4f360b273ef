import JWTKit
import Synchronization

/// jwt-kit key collections holding apps' device secrets, kept per (app, column) while the sealed value they
/// were opened from is unchanged: a rotation or re-sealing makes the next request open the new value.
final class DeviceKeys: Sendable {
    private struct Entry {
        let sealed: [UInt8]
        let keys: JWTKeyCollection
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The HS256 key of `sealed` (the UTF-8 bytes of the device secret), opened for `appId` and `column`.
    func keys(appId: String, column: SecretBox.Column, sealed: [UInt8], secrets: SecretBox) async throws -> JWTKeyCollection {
        let name = appId + "\u{0}" + column.rawValue
        if let entry = entries.withLock({ $0[name] }), entry.sealed == sealed { return entry.keys }
        let secret = try secrets.open(sealed, appId: appId, column: column)
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        entries.withLock { $0[name] = Entry(sealed: sealed, keys: keys) }
        return keys
    }
}
