import Crypto
import Foundation
import SignalboxAPNs

/// One request as the simulator received it: every header (pseudo-headers included) and the whole body.
struct ReceivedRequest: Sendable {
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// The simulator's answer to a request.
enum Verdict: Sendable, Equatable {
    case accepted(AcceptedPush)
    case rejected(status: Int, reason: APNsReason, timestamp: Date? = nil)
}

/// A signing key APNs knows: its public half, the team it belongs to and, as Apple's console can restrict a key,
/// the one environment and the topics (bundle ids) it is good for.
struct RegisteredKey: Sendable {
    var publicKey: P256.Signing.PublicKey
    var teamId: String
    /// nil: sandbox and production.
    var environment: APNsEnvironment? = nil
    /// nil: every topic of the team.
    var bundleIds: Set<String>? = nil
}

/// What one connection has proven: the provider token it last accepted, and when.
struct ConnectionAuth: Sendable {
    var acceptedJWT: String?
    /// The accepted token parsed: a request carrying the same token is neither parsed nor verified again.
    var acceptedToken: ProviderToken.Parsed?
    /// The first 16 hex digits of the accepted token's SHA-256, made once per token (`AcceptedPush.providerTokenDigest`).
    var acceptedDigest: String?
    var acceptedAt: Date?
    /// The first team seen on the connection; other teams are refused.
    var teamId: String?
    /// Set by a second provider token within 20 minutes: every request is refused until then.
    var blockedUntil: Date?
}

/// Validates a request as APNs does (`apns.md` §1–2), without I/O.
struct PushValidator {
    var keys: [String: RegisteredKey]
    /// Tokens that belong to one topic only.
    var bindings: [String: String]
    /// Tokens APNs reports as no longer valid, with the time they became so.
    var unregistered: [String: Date]
    /// The environment this simulator plays (nil: either), against which an environment-restricted key is checked.
    var environment: APNsEnvironment? = nil

    static let providerTokenLifetime: TimeInterval = 60 * 60
    static let providerTokenUpdateInterval: TimeInterval = 20 * 60

    /// Checks `request` in APNs's order; on acceptance records the provider token on `connection`.
    func validate(
        _ request: ReceivedRequest, connection: inout ConnectionAuth, connectionId: Int, now: Date
    ) -> Verdict {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            guard headers.updateValue(value, forKey: name) == nil else { return reject(400, .duplicateHeaders) }
        }
        let apnsId: String
        if let given = headers["apns-id"] {
            guard let uuid = UUID(uuidString: given), uuid.uuidString.lowercased() == given.lowercased() else {
                return reject(400, .badMessageId)
            }
            apnsId = given.lowercased()
        } else {
            apnsId = UUID().uuidString.lowercased()
        }
        guard headers[":method"] == "POST" else { return reject(405, .methodNotAllowed) }
        let path = headers[":path"] ?? ""
        guard path.hasPrefix("/3/device/") else { return reject(404, .badPath) }
        let token = String(path.dropFirst("/3/device/".count))
        guard !token.isEmpty else { return reject(400, .missingDeviceToken) }
        guard let deviceToken = try? DeviceToken(hex: token) else { return reject(400, .badDeviceToken) }

        let key: RegisteredKey, keyId: String
        switch authenticate(headers["authorization"], connection: &connection, now: now) {
        case .success(let known): (keyId, key) = known
        case .failure(let refusal): return refusal.verdict
        }
        guard let typeName = headers["apns-push-type"], let type = PushType(rawValue: typeName) else {
            return reject(400, .invalidPushType)
        }
        guard let topic = headers["apns-topic"], !topic.isEmpty else { return reject(400, .missingTopic) }
        guard topic.hasSuffix(type.topicSuffix), topic.count > type.topicSuffix.count else {
            return reject(400, .badTopic)
        }
        var priority: Int?
        if let value = headers["apns-priority"] {
            guard let parsed = Int(value), Priority(rawValue: parsed) != nil else { return reject(400, .badPriority) }
            priority = parsed
        }
        let expiration = headers["apns-expiration"]
        if let expiration, Expiration(headerValue: expiration) == nil { return reject(400, .badExpirationDate) }
        let collapseId = headers["apns-collapse-id"]
        if let collapseId, collapseId.utf8.count > 64 { return reject(400, .badCollapseId) }
        if let failure = checkPayload(request.body, for: type) { return failure }
        if let bundleIds = key.bundleIds, !bundleIds.contains(String(topic.dropLast(type.topicSuffix.count))) {
            return reject(400, .topicDisallowed)
        }
        // No device is ever given 32 zero bytes: APNs refuses that token as it refuses any token it did not issue.
        if deviceToken.hex == CredentialCheck.probeToken { return reject(400, .badDeviceToken) }
        if let bound = bindings[deviceToken.hex], bound != topic { return reject(400, .deviceTokenNotForTopic) }
        if let since = unregistered[deviceToken.hex] { return .rejected(status: 410, reason: .unregistered, timestamp: since) }
        return .accepted(
            AcceptedPush(
                token: deviceToken.hex, topic: topic, pushType: type.rawValue, priority: priority,
                expiration: expiration, collapseId: collapseId, apnsId: apnsId,
                payload: String(decoding: request.body, as: UTF8.self), receivedAt: now, connectionId: connectionId, keyId: keyId,
                providerTokenDigest: connection.acceptedDigest
            )
        )
    }

    /// A refusal of the provider token, as an `Error` so `authenticate` can return a `Result`.
    struct Refusal: Error {
        let verdict: Verdict
    }

    /// Verifies the provider token; a signature is checked once per connection and token. - Returns: the key it names.
    private func authenticate(
        _ authorization: String?, connection: inout ConnectionAuth, now: Date
    ) -> Result<(keyId: String, key: RegisteredKey), Refusal> {
        func refuse(_ status: Int, _ reason: APNsReason) -> Result<(keyId: String, key: RegisteredKey), Refusal> {
            .failure(Refusal(verdict: reject(status, reason)))
        }
        guard let authorization, authorization.hasPrefix("bearer ") else { return refuse(403, .missingProviderToken) }
        let jwt = authorization.dropFirst("bearer ".count)
        let isKnown = connection.acceptedJWT.map { $0 == jwt } ?? false
        guard let parsed = isKnown ? connection.acceptedToken : ProviderToken.parse(jwt), parsed.algorithm == "ES256",
            let key = keys[parsed.keyId], key.teamId == parsed.teamId
        else { return refuse(403, .invalidProviderToken) }
        if let pinned = connection.teamId, pinned != parsed.teamId { return refuse(403, .invalidProviderToken) }
        if !isKnown, !parsed.isSigned(by: key.publicKey) { return refuse(403, .invalidProviderToken) }
        if now.timeIntervalSince(parsed.issuedAt) > Self.providerTokenLifetime { return refuse(403, .expiredProviderToken) }
        // A key restricted to one environment is refused by the other's servers.
        if let only = key.environment, let environment, only != environment { return refuse(403, .badEnvironmentKeyIdInToken) }
        // After a token switch too soon, the connection is unusable until a switch would have been allowed (`apns.md` §3.3).
        if let blockedUntil = connection.blockedUntil, now < blockedUntil { return refuse(429, .tooManyProviderTokenUpdates) }
        if !isKnown {
            if let acceptedAt = connection.acceptedAt, now.timeIntervalSince(acceptedAt) < Self.providerTokenUpdateInterval {
                connection.blockedUntil = acceptedAt.addingTimeInterval(Self.providerTokenUpdateInterval)
                return refuse(429, .tooManyProviderTokenUpdates)
            }
            let digest = SHA256.hash(data: Data(jwt.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
            connection = ConnectionAuth(
                acceptedJWT: String(jwt), acceptedToken: parsed, acceptedDigest: digest, acceptedAt: now, teamId: parsed.teamId
            )
        }
        return .success((parsed.keyId, key))
    }

    /// The payload must be a non-empty JSON object ≤ 4096 bytes with what the push type needs.
    private func checkPayload(_ body: [UInt8], for type: PushType) -> Verdict? {
        guard !body.isEmpty else { return reject(400, .payloadEmpty) }
        guard body.count <= type.maximumPayloadSize else { return reject(413, .payloadTooLarge) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return reject(400, .payloadEmpty)
        }
        switch type {
        case .widgets, .controls:
            guard let aps = object["aps"] as? [String: Any], aps["content-changed"] as? Bool == true else {
                return reject(400, .payloadEmpty)
            }
        case .fileprovider:
            guard object["container-identifier"] is String, object["domain"] is String else {
                return reject(400, .payloadEmpty)
            }
        case .alert, .background, .liveactivity:
            break
        }
        return nil
    }

    private func reject(_ status: Int, _ reason: APNsReason) -> Verdict {
        .rejected(status: status, reason: reason)
    }
}
