import Foundation
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel

/// Replacing an app's APNs key without downtime, and proving a key against APNs before it goes live.
extension APIDependencies {
    /// The key each environment signs with (ids only).
    package func signingKeys(appId: String) async throws -> SigningKeysResponse {
        guard let app = try await stores.registry.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
        let own = try await stores.signingKeys.environmentSigningKeys(appId: appId)
        return SigningKeysResponse(appId: appId, keys: Environment.allCases.map { environment in
            if let key = own[environment] {
                return .init(environment: environment.rawValue, teamId: key.teamId, keyId: key.keyId, environmentOnly: true)
            }
            return .init(environment: environment.rawValue, teamId: app.teamId, keyId: app.keyId, environmentOnly: false)
        })
    }

    /// Stores a new key for one environment or both. Pushes already sending finish with the key they hold; the
    /// next ones (on this instance at once, on others within `AppCredentials.refreshAfter`) use the new key and
    /// its own provider token and connections. An app paused because APNs refused its old key resumes.
    /// - Throws: `APIError` naming the bad field, 404 for an unknown app.
    package func replaceSigningKey(appId: String, _ body: SigningKeyRequest) async throws -> SigningKeysResponse {
        guard let candidate = try Self.candidate(body) else {
            throw APIError.invalid(ValidationError(field: "privateKey", "is required, with teamId and keyId"))
        }
        let environment = try Self.environment(of: body)
        let sealed = try secrets.seal(candidate.pem, appId: appId, column: environment.map(SecretBox.Column.privateKey(for:)) ?? .privateKey)
        let stored = StoredSigningKey(teamId: candidate.key.teamId, keyId: candidate.key.keyId, sealedPrivateKey: sealed)
        guard try await stores.signingKeys.replaceSigningKey(appId: appId, environment: environment, stored) else {
            throw APIError.notFound("no app \(appId)")
        }
        credentials.forget(appId: appId)
        apps.removeAll()
        signals.pauses.resume(appId: appId)
        return try await signingKeys(appId: appId)
    }

    /// Sends APNs a push it must refuse (`CredentialCheck.probeToken`) in each environment asked (default both),
    /// signed with the key in `body` or, without one, with the app's stored keys, and reads the refusal.
    /// - Throws: `APIError` for a bad body, 404 for an unknown app, 503 without an APNs transport.
    package func checkCredentials(appId: String, _ body: SigningKeyRequest) async throws -> CredentialCheckResponse {
        guard let app = try await apps.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
        let candidate = try Self.candidate(body)
        let environments = try Self.environment(of: body).map { [$0] } ?? Environment.allCases
        guard let sender else {
            throw APIError(.serviceUnavailable, "apns_unavailable", "this server has no APNs transport configured")
        }
        let stored = candidate == nil ? try await credentials.entry(appId: appId) : nil
        let push = try Push(deviceToken: try DeviceToken(hex: CredentialCheck.probeToken), pushType: CredentialCheck.pushType, bundleId: app.bundleId)
        var results: [CredentialCheckResponse.Result] = []
        for environment in environments {
            let tokens: ProviderTokenManager
            if let candidate {
                tokens = await credentials.manager(for: candidate.key)
            } else if let stored {
                tokens = stored.tokens(for: environment.apns)
            } else {
                throw APIError.notFound("no app \(appId)")
            }
            let key = tokens.key
            do {
                let answer = try await sender.client.send(push, environment: environment.apns, tokens: tokens).response
                let verdict = CredentialCheck.verdict(status: answer.status, reason: answer.reason)
                results.append(.init(
                    environment: environment.rawValue, teamId: key.teamId, keyId: key.keyId, good: verdict.good, status: answer.status,
                    reason: answer.reason?.rawValue, explanation: verdict.explanation
                ))
            } catch let error as APNsTransportError {
                results.append(.init(
                    environment: environment.rawValue, teamId: key.teamId, keyId: key.keyId, good: false, status: nil, reason: error.code.rawValue,
                    explanation: "APNs (\(environment.apns.defaultHost)) did not answer (\(error.code.rawValue)): check this machine's network, firewall or proxy; nothing is known about the key yet."
                ))
            }
        }
        return CredentialCheckResponse(good: results.allSatisfy(\.good), results: results)
    }

    /// The key a body carries, checked; nil when it carries none of its fields.
    private static func candidate(_ body: SigningKeyRequest) throws -> (key: SigningKey, pem: String)? {
        guard body.privateKey != nil || body.keyId != nil || body.teamId != nil else { return nil }
        guard let pem = body.privateKey else { throw APIError.invalid(ValidationError(field: "privateKey", "is required with teamId and keyId")) }
        guard let teamId = body.teamId else { throw APIError.invalid(ValidationError(field: "teamId", "is required with privateKey")) }
        guard let keyId = body.keyId else { throw APIError.invalid(ValidationError(field: "keyId", "is required with privateKey")) }
        do {
            return (try SigningKey(pem: pem, keyId: keyId, teamId: teamId), pem)
        } catch {
            throw APIError.invalid(ValidationError(field: field(of: error.message), error.message))
        }
    }

    private static func environment(of body: SigningKeyRequest) throws -> Environment? {
        try body.environment.map { value throws(ValidationError) in try Validate.environment(value, field: "environment") }
    }
}
