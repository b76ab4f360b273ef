import Foundation
import SignalboxAPI

/// Storage of apps and their registrations. Every backend passes the same conformance suite.
///
/// Writes are idempotent: repeating one changes nothing but last-seen times.
public protocol RegistryStore: Sendable {
    /// Throws when storage does not answer.
    func ping() async throws
    func createApp(_ app: AppRecord) async throws
    func app(id: String) async throws -> AppRecord?
    func app(serverKeyHash: String) async throws -> AppRecord?
    func apps() async throws -> [AppRecord]
    /// Deletes the app with every registration. - Returns: whether it existed.
    func deleteApp(id: String) async throws -> Bool
    /// - Returns: whether the app exists.
    func updateServerKeyHash(appId: String, hash: String) async throws -> Bool
    /// Replaces the app's sealed columns with the record's (re-sealing). - Returns: whether the app exists.
    func updateSealedSecrets(_ app: AppRecord) async throws -> Bool
    /// Installs a new sealed device secret; `previous` (sealed) stays valid until `previousExpiresAt`, or is
    /// dropped when `nil`. - Returns: whether the app exists.
    func rotateDeviceSecret(appId: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool
    /// - Returns: whether the app exists.
    func setDeviceTokenLifetime(appId: String, seconds: Int) async throws -> Bool

    func putInstallation(appId: String, _ installation: Installation, now: Date) async throws
    /// As `putInstallation`, but a new installation is refused with `StoreError.quotaExceeded` when its user
    /// already has `maxPerUser` installations (checked in the write's transaction), and a `revision` older than
    /// the stored one is refused with `StoreError.conflict` carrying `currentRevision` (see `Revision`).
    func putInstallation(appId: String, _ installation: Installation, now: Date, maxPerUser: Int?, revision: Int64?) async throws
    /// The installation's owner: `nil` when it does not exist, `.some(nil)` when it has no user.
    func installationUser(appId: String, id: String) async throws -> String??
    /// Everything registered for the installation; expired enumerators are left out.
    func installation(appId: String, id: String, now: Date) async throws -> InstallationSnapshot?
    func deleteInstallation(appId: String, id: String) async throws -> Bool

    /// - Throws: `StoreError.notFound` when the installation does not exist.
    /// A token held by another installation of the app moves here. An older `revision` throws `StoreError.conflict`.
    func putWidgets(appId: String, installationId: String, _ registration: WidgetRegistration, now: Date, revision: Int64?) async throws
    /// Replaces the controls; a token missing from the list is gone. - Throws: `StoreError.notFound`.
    /// A token held by another installation of the app moves here. An older `revision` throws `StoreError.conflict`.
    func putControls(appId: String, installationId: String, _ controls: [Control], now: Date, revision: Int64?) async throws
    /// - Throws: `StoreError.notFound` when the installation does not exist.
    /// A token held by another installation of the app moves here. An older `revision` throws `StoreError.conflict`.
    func putFileProvider(appId: String, installationId: String, _ registration: FileProviderRegistration, now: Date, revision: Int64?) async throws
    /// Removes the File Provider token with its domains and enumerators; shares the `file-provider` revision with
    /// `putFileProvider`. - Returns: whether there was one. - Throws: `StoreError.notFound` for an unknown installation.
    func deleteFileProvider(appId: String, installationId: String, now: Date, revision: Int64?) async throws -> Bool
    /// Starts or renews an enumerator lease; a new one is refused with `StoreError.quotaExceeded` when the
    /// installation already has `maxLive` live ones (`nil`: no limit).
    /// - Throws: `StoreError.notFound` for an unknown installation or domain.
    /// The enumerator's PUT and DELETE share one revision; an older one throws `StoreError.conflict`.
    func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date, maxLive: Int?, revision: Int64?) async throws
    func deleteEnumerator(appId: String, installationId: String, domain: String, container: String, now: Date, revision: Int64?) async throws -> Bool
    /// Removes leases that ended before `now`. - Returns: how many.
    func deleteExpiredEnumerators(now: Date) async throws -> Int
}

extension RegistryStore {
    /// Starts or renews an enumerator lease, without a limit.
    public func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date) async throws {
        try await putEnumerator(appId: appId, installationId: installationId, enumerator, now: now, maxLive: nil, revision: nil)
    }

    public func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date, maxLive: Int?) async throws {
        try await putEnumerator(appId: appId, installationId: installationId, enumerator, now: now, maxLive: maxLive, revision: nil)
    }

    public func putInstallation(appId: String, _ installation: Installation, now: Date, maxPerUser: Int) async throws {
        try await putInstallation(appId: appId, installation, now: now, maxPerUser: maxPerUser, revision: nil)
    }

    public func putWidgets(appId: String, installationId: String, _ registration: WidgetRegistration, now: Date) async throws {
        try await putWidgets(appId: appId, installationId: installationId, registration, now: now, revision: nil)
    }

    public func putControls(appId: String, installationId: String, _ controls: [Control], now: Date) async throws {
        try await putControls(appId: appId, installationId: installationId, controls, now: now, revision: nil)
    }

    public func putFileProvider(appId: String, installationId: String, _ registration: FileProviderRegistration, now: Date) async throws {
        try await putFileProvider(appId: appId, installationId: installationId, registration, now: now, revision: nil)
    }

    public func deleteEnumerator(appId: String, installationId: String, domain: String, container: String, now: Date) async throws -> Bool {
        try await deleteEnumerator(appId: appId, installationId: installationId, domain: domain, container: container, now: now, revision: nil)
    }
}

/// A storage failure in domain terms.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable { case notFound, conflict, unavailable, quotaExceeded }
    public var code: Code
    public var message: String
    /// With `.conflict` from a registration write: the stored revision, newer than the one sent.
    public var currentRevision: Int64?

    public init(_ code: Code, _ message: String, currentRevision: Int64? = nil) {
        self.code = code
        self.message = message
        self.currentRevision = currentRevision
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
