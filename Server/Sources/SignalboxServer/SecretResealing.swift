import Foundation
import Logging
import SignalboxModel

/// Re-seals the secrets of apps stored before sealed values were bound to their app and column (no version
/// byte, no associated data), so that every value read afterwards is a bound one. Runs at start; values that
/// are already bound are left alone, so running it again changes nothing.
///
/// - Returns: how many apps were re-sealed.
@discardableResult
public func resealLegacySecrets(store: any RegistryStore, secrets: SecretBox, logger: Logger) async throws -> Int {
    var resealed = 0
    for var app in try await store.apps() {
        let appId = app.id
        var changed = false
        func bound(_ sealed: [UInt8], _ column: SecretBox.Column) throws -> [UInt8] {
            if (try? secrets.open(sealed, appId: appId, column: column)) != nil { return sealed }
            let plaintext = try secrets.openLegacy(sealed)
            changed = true
            return try secrets.seal(plaintext, appId: appId, column: column)
        }
        do {
            app.sealedPrivateKey = try bound(app.sealedPrivateKey, .privateKey)
            app.sealedDeviceSecret = try bound(app.sealedDeviceSecret, .deviceSecret)
            app.previousSealedDeviceSecret = try app.previousSealedDeviceSecret.map { try bound($0, .previousDeviceSecret) }
        } catch {
            logger.warning("an app's sealed secrets open neither bound nor as legacy values; left as they are", metadata: ["app.id": "\(app.id)"])
            continue
        }
        if changed, try await store.updateSealedSecrets(app) {
            resealed += 1
        }
    }
    if resealed > 0 { logger.notice("sealed secrets bound to their app and column", metadata: ["apps": "\(resealed)"]) }
    return resealed
}
