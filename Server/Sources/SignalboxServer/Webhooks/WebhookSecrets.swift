import Foundation
import SignalboxModel

/// Seals and opens webhook signing secrets with the master key, each bound to its endpoint.
struct WebhookSecrets: Sendable {
    let box: SecretBox

    /// What a sealed secret is bound to besides its column: the app and the endpoint.
    static func owner(appId: String, endpointId: String) -> String { "\(appId)/\(endpointId)" }

    func seal(_ secret: String, appId: String, endpointId: String, previous: Bool = false) throws -> [UInt8] {
        try box.seal(secret, appId: Self.owner(appId: appId, endpointId: endpointId), column: previous ? .previousWebhookSecret : .webhookSecret)
    }

    /// The secrets that sign a delivery at `now`: the current one, then the previous one while its overlap lasts.
    func signing(_ endpoint: WebhookEndpoint, at now: Date) throws -> [String] {
        let owner = Self.owner(appId: endpoint.appId, endpointId: endpoint.id)
        var secrets = [try box.open(endpoint.sealedSecret, appId: owner, column: .webhookSecret)]
        if let previous = endpoint.previousSealedSecret, let until = endpoint.previousSecretExpiresAt, now < until {
            secrets.append(try box.open(previous, appId: owner, column: .previousWebhookSecret))
        }
        return secrets
    }

    /// The current secret, re-sealed for the previous column (a sealed value is bound to its column).
    func resealAsPrevious(_ endpoint: WebhookEndpoint) throws -> [UInt8] {
        let owner = Self.owner(appId: endpoint.appId, endpointId: endpoint.id)
        return try box.seal(try box.open(endpoint.sealedSecret, appId: owner, column: .webhookSecret), appId: owner, column: .previousWebhookSecret)
    }
}
