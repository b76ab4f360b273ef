import Foundation
import SignalboxAPNs

/// Sends one push for an app: its credentials, its topic, the installation's environment.
public struct PushSender: Sendable {
    /// What sending for an app needs: its bundle id and its keys' provider-token managers.
    public struct Credentials: Sendable {
        public let bundleId: String
        /// The app's own key, for every environment without a key of its own.
        public let tokens: ProviderTokenManager
        /// Keys restricted to one environment.
        public let environmentTokens: [APNsEnvironment: ProviderTokenManager]

        public init(bundleId: String, tokens: ProviderTokenManager, environmentTokens: [APNsEnvironment: ProviderTokenManager] = [:]) {
            self.bundleId = bundleId
            self.tokens = tokens
            self.environmentTokens = environmentTokens
        }

        /// The manager of the key that signs pushes to `environment`.
        public func tokens(for environment: APNsEnvironment) -> ProviderTokenManager {
            environmentTokens[environment] ?? tokens
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
        return try await client.send(push, environment: environment, tokens: app.tokens(for: environment))
    }
}
