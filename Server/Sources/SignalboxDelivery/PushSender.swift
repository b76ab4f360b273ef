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
    /// The app's credentials if they are at hand without waiting (cached); `nil` otherwise.
    let credentialsAtHand: @Sendable (_ appId: String) -> Credentials?

    /// - Parameters:
    ///   - credentialsAtHand: the app's credentials when known without a wait, so a push can start without a task
    ///     (`start`); by default never.
    public init(
        client: APNsClient, credentialsAtHand: @escaping @Sendable (_ appId: String) -> Credentials? = { _ in nil },
        credentials: @escaping @Sendable (_ appId: String) async throws -> Credentials?
    ) {
        self.client = client
        self.credentialsAtHand = credentialsAtHand
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
        return try await client.send(
            try push(app, token: token, type: type, payload: payload, priority: priority, expiration: expiration, collapseId: collapseId),
            environment: environment, tokens: app.tokens(for: environment)
        )
    }

    /// Builds the push and sends it as `send` does, without a task when the app's credentials are at hand
    /// (`APNsClient.start`); `completion` gets the result or what is left for a task.
    public func start(
        appId: String, token: String, type: PushType, environment: APNsEnvironment, payload: [UInt8]?,
        completion: @escaping @Sendable (Started<APNsClient.Result>) -> Void
    ) {
        guard let app = credentialsAtHand(appId) else {
            completion(.unfinished { try await send(appId: appId, token: token, type: type, environment: environment, payload: payload) })
            return
        }
        let push: Push
        do {
            push = try self.push(app, token: token, type: type, payload: payload, priority: .none, expiration: .none, collapseId: nil)
        } catch {
            completion(.finished(.failure(error)))
            return
        }
        client.start(push, environment: environment, tokens: app.tokens(for: environment), completion: completion)
    }

    /// Opens the app's connection to `environment` ahead of its first push (`APNsClient.prepare`).
    /// - Throws: `Failure.unknownApp`, or when its credentials cannot be loaded.
    public func prepare(appId: String, environment: APNsEnvironment) async throws {
        guard let app = try await credentials(appId) else { throw Failure.unknownApp }
        client.prepare(bundleId: app.bundleId, environment: environment, tokens: app.tokens(for: environment))
    }

    /// - Throws: `Failure.invalid` when the push cannot be built.
    private func push(
        _ app: Credentials, token: String, type: PushType, payload: [UInt8]?, priority: Priority??, expiration: Expiration??, collapseId: String?
    ) throws(Failure) -> Push {
        do {
            return try Push(
                deviceToken: try DeviceToken(hex: token), pushType: type, bundleId: app.bundleId, payload: payload,
                priority: priority, expiration: expiration, collapseId: collapseId
            )
        } catch {
            throw Failure.invalid("\(error)")
        }
    }
}
