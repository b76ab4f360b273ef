import Foundation

/// `POST /v1/apps`: an app and its APNs credentials.
public struct CreateAppRequest: Sendable, Hashable, Codable {
    public var bundleId: String
    public var teamId: String
    public var keyId: String
    /// The `.p8` key as PEM text.
    public var privateKey: String
    /// `sandbox` or `production`: the default for installations that do not say.
    public var environment: String
    /// How far ahead a device JWT's `exp` may be, in seconds; 24 h when absent.
    public var deviceTokenLifetimeSeconds: Int?

    public init(
        bundleId: String, teamId: String, keyId: String, privateKey: String, environment: String, deviceTokenLifetimeSeconds: Int? = nil
    ) {
        self.bundleId = bundleId
        self.teamId = teamId
        self.keyId = keyId
        self.privateKey = privateKey
        self.environment = environment
        self.deviceTokenLifetimeSeconds = deviceTokenLifetimeSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case bundleId, teamId, keyId, privateKey, environment, deviceTokenLifetimeSeconds }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleId = try container.decode(String.self, forKey: .bundleId)
        teamId = try container.decode(String.self, forKey: .teamId)
        keyId = try container.decode(String.self, forKey: .keyId)
        privateKey = try container.decode(String.self, forKey: .privateKey)
        environment = try container.decode(String.self, forKey: .environment)
        deviceTokenLifetimeSeconds = try container.decodeIfPresent(Int.self, forKey: .deviceTokenLifetimeSeconds)
    }
}

/// An app as `GET /v1/apps/{appId}` shows it: never a secret.
public struct AppResponse: Sendable, Hashable, Codable {
    public var appId: String
    public var bundleId: String
    public var teamId: String
    public var keyId: String
    public var environment: String
    public var createdAt: Date
    /// How far ahead a device JWT's `exp` may be, in seconds.
    public var deviceTokenLifetimeSeconds: Int

    public init(
        appId: String, bundleId: String, teamId: String, keyId: String, environment: String, createdAt: Date,
        deviceTokenLifetimeSeconds: Int = 86_400
    ) {
        self.deviceTokenLifetimeSeconds = deviceTokenLifetimeSeconds
        self.appId = appId
        self.bundleId = bundleId
        self.teamId = teamId
        self.keyId = keyId
        self.environment = environment
        self.createdAt = createdAt
    }
}

/// The answer to `POST /v1/apps`: the app and its secrets, shown this once.
public struct AppCreatedResponse: Sendable, Hashable, Codable {
    public var app: AppResponse
    public var appId: String
    public var serverKey: String
    public var deviceSecret: String

    public init(app: AppResponse, serverKey: String, deviceSecret: String) {
        self.app = app
        self.appId = app.appId
        self.serverKey = serverKey
        self.deviceSecret = deviceSecret
    }
}

/// The answer to `POST /v1/apps/{appId}/server-key`: the new server key, shown once; the old one stops working.
public struct ServerKeyResponse: Sendable, Hashable, Codable {
    public var appId: String
    public var serverKey: String

    public init(appId: String, serverKey: String) {
        self.appId = appId
        self.serverKey = serverKey
    }
}

/// `POST /v1/apps/{appId}/device-secret`: how long the previous secret stays valid (seconds, default 0).
public struct DeviceSecretRotation: Sendable, Hashable, Codable {
    public var graceSeconds: Int?

    public init(graceSeconds: Int? = nil) { self.graceSeconds = graceSeconds }

    enum CodingKeys: String, CodingKey, CaseIterable { case graceSeconds }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        graceSeconds = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int.self, forKey: .graceSeconds)
    }
}

/// The answer to `POST /v1/apps/{appId}/device-secret`: the new device secret, shown once, and until when the
/// previous one is still accepted (absent: it stopped at once).
public struct DeviceSecretResponse: Sendable, Hashable, Codable {
    public var appId: String
    public var deviceSecret: String
    public var previousSecretValidUntil: Date?

    public init(appId: String, deviceSecret: String, previousSecretValidUntil: Date?) {
        self.appId = appId
        self.deviceSecret = deviceSecret
        self.previousSecretValidUntil = previousSecretValidUntil
    }
}

/// `GET/PUT /v1/apps/{appId}/device-tokens`: how far ahead a device JWT's `exp` may be, in seconds.
public struct DeviceTokenSettings: Sendable, Hashable, Codable {
    public var lifetimeSeconds: Int

    public init(lifetimeSeconds: Int) { self.lifetimeSeconds = lifetimeSeconds }

    enum CodingKeys: String, CodingKey, CaseIterable { case lifetimeSeconds }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        lifetimeSeconds = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lifetimeSeconds)
    }
}

/// Every error body: `{"error": {"code": "...", "message": "..."}}`.
public struct ErrorResponse: Sendable, Hashable, Codable {
    public struct Detail: Sendable, Hashable, Codable {
        public var code: String
        public var message: String
        /// With `stale_revision` (409): the revision the server holds, newer than the one sent.
        public var currentRevision: Int64?
    }

    public var error: Detail

    public init(code: String, message: String, currentRevision: Int64? = nil) {
        error = Detail(code: code, message: message, currentRevision: currentRevision)
    }
}

/// `PUT /v1/apps/{appId}/delivery` and its answer: per push type (`widgets`, `controls`, `fileprovider`), the
/// least time between two pushes to one token, in seconds; 0 or absent means no minimum (the default).
public struct DeliverySettings: Sendable, Hashable, Codable {
    public var minimumIntervalSeconds: [String: Int]

    public init(minimumIntervalSeconds: [String: Int]) {
        self.minimumIntervalSeconds = minimumIntervalSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case minimumIntervalSeconds }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        minimumIntervalSeconds = try container.decode([String: Int].self, forKey: .minimumIntervalSeconds)
    }
}
