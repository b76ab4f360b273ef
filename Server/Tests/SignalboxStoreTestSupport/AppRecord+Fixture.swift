import Foundation
import SignalboxModel

extension AppRecord {
    /// An app record for store tests: fixed ids and sealed bytes, `keyHash` unique unless given.
    package static func fixture(_ id: String, keyHash: String = UUID().uuidString) -> AppRecord {
        AppRecord(
            id: id, bundleId: "com.example.\(id)", teamId: "TEAM123456", keyId: "KEY1234567", environment: .sandbox,
            sealedPrivateKey: [1, 2, 3], sealedDeviceSecret: [4, 5], serverKeyHash: keyHash, createdAt: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }
}
