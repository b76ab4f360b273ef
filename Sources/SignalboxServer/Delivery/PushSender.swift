import Foundation
import SignalboxAPNs

/// Sends one push for an app: its credentials, its topic, the installation's environment.
struct PushSender: Sendable {
    let client: APNsClient
    let credentials: AppCredentials

    enum Failure: Error {
        /// The app is gone.
        case unknownApp
        /// The push cannot be built (bad token, payload).
        case invalid(String)
    }

    /// Builds the push and sends it. - Throws: `Failure`, or `APNsTransportError` when no answer came.
    func send(
        appId: String, token: String, type: PushType, environment: APNsEnvironment, payload: [UInt8]?,
        priority: Priority?? = .none, expiration: Expiration?? = .none, collapseId: String? = nil
    ) async throws -> APNsClient.Result {
        guard let app = try await credentials.entry(appId: appId) else { throw Failure.unknownApp }
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
