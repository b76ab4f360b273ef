import Foundation
import SignalboxAPNs

/// Sends one push for an app: its credentials, its topic, the installation's environment.
public struct PushSender: Sendable {
    /// What sending for an app needs: its bundle id and its key's provider-token manager.
    public struct Credentials: Sendable {
        public let bundleId: String
        public let tokens: ProviderTokenManager

        public init(bundleId: String, tokens: ProviderTokenManager) {
            self.bundleId = bundleId
            self.tokens = tokens
        }
    }

    public let client: APNsClient
    /// The app's credentials; `nil` when the app no longer exists.
    let credentials: @Sendable (_ appId: String) async throws -> Credentials?

    public init(client: APNsClient, credentials: @escaping @Sendable (_ appId: String) async throws -> Credentials?) {
        self.client = client
        self.credentials = credentials
    }

    public enum Failure: Error {
        /// The app is gone.
        case unknownApp
        /// The push cannot be built (bad token, payload).
        case invalid(String)
    }

    /// Builds the push and sends it. - Throws: `Failure`, or `APNsTransportError` when no answer came.
    public func send(
        appId: String, token: String, type: PushType, environment: APNsEnvironment, payload: [UInt8]?,
        priority: Priority?? = .none, expiration: Expiration?? = .none, collapseId: String? = nil
    ) async throws -> APNsClient.Result {
        guard let app = try await credentials(appId) else { throw Failure.unknownApp }
        let push: Push
        do {
            push = try Push(
                deviceToken: try DeviceToken(hex: token), pushType: type, bundleId: app.bundleId, payload: payload,
                priority: priority, expiration: expiration, collapseId: collapseId
            )
        } catch {
            throw Failure.invalid("\(error)")
        }
        return try await client.send(push, environment: environment, tokens: app.tokens)
    }
}
