/// What a device may register with its JWT (design.md "Security", quotas on device writes). Beyond a limit a
/// write is refused with 403 `quota_exceeded`; the app's server key is not limited by them.
public struct DeviceQuotas: Sendable {
    /// Installations one user of an app may have (a new one beyond is refused; existing ones may be updated).
    public var installationsPerUser = 20
    /// Live enumerator leases per installation (renewing one that is live is always allowed).
    public var enumeratorsPerInstallation = 256

    public init() {}
}
