/// Proves a signing key, team and topic against APNs without a device: a push to a token APNs never issued is
/// refused, and which refusal says how far APNs got. `BadDeviceToken` comes only after the provider token and the
/// topic were accepted, so it means the credentials are good.
public enum CredentialCheck {
    /// 32 zero bytes: no device has this token, so APNs refuses it once everything before it is right.
    public static let probeToken = String(repeating: "0", count: 64)
    /// A background push (topic: the bundle id), which needs nothing but its topic.
    public static let pushType = PushType.background

    /// What an answer to the probe says about the credentials.
    public struct Verdict: Sendable, Hashable {
        /// Whether the key, team and topic were accepted.
        public let good: Bool
        /// The answer in plain words, with what to do.
        public let explanation: String
    }

    /// Reads APNs's answer to the probe push.
    public static func verdict(status: Int, reason: APNsReason?) -> Verdict {
        if status == 200 {
            return Verdict(good: true, explanation: "APNs accepted the push: the key, team and topic are good (this server accepts any token).")
        }
        guard let reason else {
            return Verdict(good: false, explanation: "APNs answered \(status) without a reason; the credentials could not be proven, try again.")
        }
        if let explanation = explanations[reason] { return Verdict(good: reason == .badDeviceToken, explanation: explanation) }
        if status >= 500 || status == 429 {
            return Verdict(good: false, explanation: "APNs is busy or failing (\(status) \(reason.rawValue)); nothing is known about the key yet, try again shortly.")
        }
        return Verdict(good: false, explanation: "APNs refused the push with \(status) \(reason.rawValue) before it got to the device token; see Apple's list of reasons.")
    }

    private static let explanations: [APNsReason: String] = [
        .badDeviceToken: "The key, team and topic are good: APNs accepted them and refused only the made-up device token.",
        .invalidProviderToken: "APNs does not accept the key: the key id, the team id or the .p8 file is wrong, or the key was revoked. Check all three in Apple's developer account (Certificates, Identifiers & Profiles > Keys).",
        .badEnvironmentKeyIdInToken: "This key is restricted to the other environment: use a sandbox key for sandbox and a production key for production (or a key for both), or set one key per environment.",
        .expiredProviderToken: "APNs says the provider token is older than an hour or dated in the future: this machine's clock is probably wrong; set it right (NTP) and check again.",
        .missingProviderToken: "APNs received no provider token: the request lost its authorization header; this should not happen, please report it.",
        .unrelatedKeyIdInToken: "The key belongs to another team or app than the topic: use a key of the team that owns the bundle id.",
        .topicDisallowed: "The key may not push to this bundle id (a key restricted to other topics, or a bundle id of another team): check the app's bundle id and the key's topics.",
        .badTopic: "APNs refused the topic: the app's bundle id is malformed or unknown to APNs.",
        .deviceTokenNotForTopic: "The key and team are good; APNs refused the topic for this device token.",
        .forbidden: "APNs forbids this push for these credentials (often a key without the Apple Push Notifications service enabled).",
        .tooManyProviderTokenUpdates: "APNs saw new provider tokens too often on one connection; wait 20 minutes and check again.",
        .badCertificate: "APNs refused the client certificate; Signalbox uses keys, not certificates: this answer comes from something that is not APNs.",
        .badCertificateEnvironment: "APNs refused the client certificate's environment; Signalbox uses keys, not certificates: this answer comes from something that is not APNs.",
    ]
}
