/// What a device may register with its JWT (design.md "Security", quotas on device writes). Beyond a limit a
/// write is refused with 403 `quota_exceeded`; the app's server key is not limited by them.
public struct DeviceQuotas: Sendable {
    /// Installations one user of an app may have (a new one beyond is refused; existing ones may be updated).
    public var installationsPerUser = 20
    /// Live enumerator leases per installation (renewing one that is live is always allowed).
    public var enumeratorsPerInstallation = 256

    public init() {}
}

extension DeviceQuotas {
    /// Reads `SIGNALBOX_MAX_INSTALLATIONS_PER_USER` and `SIGNALBOX_MAX_ENUMERATORS_PER_INSTALLATION` (positive integers).
    public mutating func apply(environment: [String: String]) {
        if let value = environment["SIGNALBOX_MAX_INSTALLATIONS_PER_USER"].flatMap(Int.init), value > 0 { installationsPerUser = value }
        if let value = environment["SIGNALBOX_MAX_ENUMERATORS_PER_INSTALLATION"].flatMap(Int.init), value > 0 {
            enumeratorsPerInstallation = value
        }
    }
}
