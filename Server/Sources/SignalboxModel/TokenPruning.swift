import Foundation

/// When an APNs answer removes a token from every registration that holds it (`apns.md` §2.5). The store
/// gathers the facts in the transaction that records the answer and applies these rules.
public enum TokenPruning {
    /// `BadDeviceToken` / `DeviceTokenNotForTopic` in a row before a token is removed: one such answer can come
    /// from a wrong environment for a moment, two in a row rarely do. A delivery to the token in between clears
    /// its strikes.
    public static let strikesToRemove = 2

    /// After a strike, the token's strikes so far (this one included): whether it goes.
    public static func removes(afterStrikes strikes: Int) -> Bool { strikes >= strikesToRemove }

    /// `410 Unregistered` with APNs' timestamp `since`: the token goes unless a registration renewed it at or
    /// after that time (the app re-registered it since the device said it was gone).
    public static func removesUnregistered(since: Date?, renewedSince: Bool) -> Bool {
        since == nil || !renewedSince
    }
}
