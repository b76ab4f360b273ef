import Foundation

/// The registration quotas: how many installations one user may have, and how many enumerators one installation may
/// keep live. Each backend counts in the write's transaction and asks these rules, so concurrent writes cannot pass a
/// limit together.
public enum Quotas {
    /// A new installation for a user who already has `existing`; a known installation is never refused.
    /// - Throws: `StoreError(.quotaExceeded)` at `maximum`.
    public static func checkInstallation(isNew: Bool, existing: Int, maximum: Int?) throws {
        guard let maximum, isNew, existing >= maximum else { return }
        throw StoreError(.quotaExceeded, "this user already has \(maximum) installations; delete one first")
    }

    /// An enumerator lease for an installation with `live` live ones; renewing a live one is never refused.
    /// - Throws: `StoreError(.quotaExceeded)` at `maximum`.
    public static func checkEnumerator(isRenewal: Bool, live: Int, maximum: Int?) throws {
        guard let maximum, !isRenewal, live >= maximum else { return }
        throw StoreError(.quotaExceeded, "this installation already has \(maximum) live enumerators")
    }
}
