/// `PUT /v1/apps/{appId}/apns-key`: a new APNs key for the app, for one environment or (without `environment`) for
/// both. As the body of `POST …/apns-key/check`, every field is optional: without a key, the app's stored keys
/// are checked; with one, that key is checked before it is stored.
public struct SigningKeyRequest: Sendable, Hashable, Codable {
    public var teamId: String?
    public var keyId: String?
    /// The `.p8` key as PEM text.
    public var privateKey: String?
    /// `sandbox` or `production`: the key serves that environment alone; absent: both.
    public var environment: String?

    public init(teamId: String? = nil, keyId: String? = nil, privateKey: String? = nil, environment: String? = nil) {
        self.teamId = teamId
        self.keyId = keyId
        self.privateKey = privateKey
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case teamId, keyId, privateKey, environment }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        teamId = try container.decodeIfPresent(String.self, forKey: .teamId)
        keyId = try container.decodeIfPresent(String.self, forKey: .keyId)
        privateKey = try container.decodeIfPresent(String.self, forKey: .privateKey)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
    }
}

/// The keys an app signs with, per environment (never the key itself).
public struct SigningKeysResponse: Sendable, Hashable, Codable {
    public struct Key: Sendable, Hashable, Codable {
        /// `sandbox` or `production`.
        public var environment: String
        public var teamId: String
        public var keyId: String
        /// Whether this is a key for this environment alone (else the app's key for both).
        public var environmentOnly: Bool

        public init(environment: String, teamId: String, keyId: String, environmentOnly: Bool) {
            self.environment = environment
            self.teamId = teamId
            self.keyId = keyId
            self.environmentOnly = environmentOnly
        }
    }

    public var appId: String
    public var keys: [Key]

    public init(appId: String, keys: [Key]) {
        self.appId = appId
        self.keys = keys
    }
}

/// `POST /v1/apps/{appId}/apns-key/check`: what APNs said to a probe push in each environment.
public struct CredentialCheckResponse: Sendable, Hashable, Codable {
    public struct Result: Sendable, Hashable, Codable {
        public var environment: String
        public var teamId: String
        public var keyId: String
        /// Whether APNs accepted the key, team and topic.
        public var good: Bool
        /// APNs's HTTP status; absent when APNs did not answer.
        public var status: Int?
        /// APNs's reason, or why no answer came.
        public var reason: String?
        /// The answer in plain words, with what to do.
        public var explanation: String

        public init(environment: String, teamId: String, keyId: String, good: Bool, status: Int?, reason: String?, explanation: String) {
            self.environment = environment
            self.teamId = teamId
            self.keyId = keyId
            self.good = good
            self.status = status
            self.reason = reason
            self.explanation = explanation
        }
    }

    /// Whether every environment checked is good.
    public var good: Bool
    public var results: [Result]

    public init(good: Bool, results: [Result]) {
        self.good = good
        self.results = results
    }
}
