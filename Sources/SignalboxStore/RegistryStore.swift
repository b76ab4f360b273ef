import Foundation
import SignalboxAPI
import SignalboxModel

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

    func putInstallation(appId: String, _ installation: Installation, now: Date) async throws
    /// The installation's owner: `nil` when it does not exist, `.some(nil)` when it has no user.
    func installationUser(appId: String, id: String) async throws -> String??
    /// Everything registered for the installation; expired enumerators are left out.
    func installation(appId: String, id: String, now: Date) async throws -> InstallationSnapshot?
    func deleteInstallation(appId: String, id: String) async throws -> Bool

    /// - Throws: `StoreError.notFound` when the installation does not exist.
    func putWidgets(appId: String, installationId: String, _ registration: WidgetRegistration, now: Date) async throws
    /// Replaces the controls; a token missing from the list is gone. - Throws: `StoreError.notFound`.
    func putControls(appId: String, installationId: String, _ controls: [Control], now: Date) async throws
    /// - Throws: `StoreError.notFound` when the installation does not exist.
    func putFileProvider(appId: String, installationId: String, _ registration: FileProviderRegistration, now: Date) async throws
    /// Starts or renews an enumerator lease. - Throws: `StoreError.notFound` for an unknown installation or domain.
    func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date) async throws
    func deleteEnumerator(appId: String, installationId: String, domain: String, container: String, now: Date) async throws -> Bool
    /// Removes leases that ended before `now`. - Returns: how many.
    func deleteExpiredEnumerators(now: Date) async throws -> Int
}

/// A storage failure in domain terms.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable { case notFound, conflict, unavailable }
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
