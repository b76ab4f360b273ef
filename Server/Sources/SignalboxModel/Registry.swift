import Foundation
import SignalboxAPI
import SignalboxAPNs

/// The APNs environment a token was issued for.
public enum Environment: String, Sendable, Hashable, Codable, CaseIterable {
    case sandbox, production

    /// The APNs environment (host) its tokens belong to.
    public var apns: APNsEnvironment {
        switch self {
        case .sandbox: .sandbox
        case .production: .production
        }
    }
}

/// An app and its credentials, as stored: secrets sealed, the server key only as a hash.
public struct AppRecord: Sendable, Hashable {
    public var id: String
    public var bundleId: String
    public var teamId: String
    public var keyId: String
    public var environment: Environment
    /// The `.p8` PEM, sealed with the master key.
    public var sealedPrivateKey: [UInt8]
    /// The device-JWT secret, sealed with the master key.
    public var sealedDeviceSecret: [UInt8]
    /// SHA-256 (hex) of the server key.
    public var serverKeyHash: String
    public var createdAt: Date
    /// The device secret before the last rotation, sealed, while its grace period lasts.
    public var previousSealedDeviceSecret: [UInt8]?
    /// When the previous device secret stops being accepted.
    public var previousDeviceSecretExpiresAt: Date?
    /// How far ahead a device JWT's `exp` may be, in seconds.
    public var deviceTokenLifetime: Int

    /// A device JWT lives at most this long unless the app says otherwise: 24 h.
    public static let defaultDeviceTokenLifetime = 86_400

    public init(
        id: String, bundleId: String, teamId: String, keyId: String, environment: Environment, sealedPrivateKey: [UInt8],
        sealedDeviceSecret: [UInt8], serverKeyHash: String, createdAt: Date, previousSealedDeviceSecret: [UInt8]? = nil,
        previousDeviceSecretExpiresAt: Date? = nil, deviceTokenLifetime: Int = AppRecord.defaultDeviceTokenLifetime
    ) {
        self.previousSealedDeviceSecret = previousSealedDeviceSecret
        self.previousDeviceSecretExpiresAt = previousDeviceSecretExpiresAt
        self.deviceTokenLifetime = deviceTokenLifetime
        self.id = id
        self.bundleId = bundleId
        self.teamId = teamId
        self.keyId = keyId
        self.environment = environment
        self.sealedPrivateKey = sealedPrivateKey
        self.sealedDeviceSecret = sealedDeviceSecret
        self.serverKeyHash = serverKeyHash
        self.createdAt = createdAt
    }
}

/// One install of an app on one device.
public struct Installation: Sendable, Hashable {
    public var id: String
    public var userId: String?
    public var channels: [String]
    public var environment: Environment

    public init(id: String, userId: String?, channels: [String], environment: Environment) {
        self.id = id
        self.userId = userId
        self.channels = channels
        self.environment = environment
    }
}

/// The WidgetKit token of an installation and its push-enabled widgets.
public struct WidgetRegistration: Sendable, Hashable {
    public var pushToken: String
    public var widgets: [Widget]

    public init(pushToken: String, widgets: [Widget]) {
        self.pushToken = pushToken
        self.widgets = widgets
    }
}

/// The PushKit File Provider token of an installation and its domains.
public struct FileProviderRegistration: Sendable, Hashable {
    public var pushToken: String
    public var domains: [FileProviderDomain]

    public init(pushToken: String, domains: [FileProviderDomain]) {
        self.pushToken = pushToken
        self.domains = domains
    }
}

/// A container with a live enumerator until `expiresAt`.
public struct Enumerator: Sendable, Hashable {
    public var domain: String
    public var container: String
    public var expiresAt: Date

    public init(domain: String, container: String, expiresAt: Date) {
        self.domain = domain
        self.container = container
        self.expiresAt = expiresAt
    }
}

/// Everything registered for one installation.
public struct InstallationSnapshot: Sendable, Hashable {
    public var installation: Installation
    public var widgets: WidgetRegistration?
    public var controls: [Control]
    public var fileProvider: FileProviderRegistration?
    /// Live enumerators only.
    public var enumerators: [Enumerator]
    public var lastSeenAt: Date

    public init(
        installation: Installation, widgets: WidgetRegistration?, controls: [Control],
        fileProvider: FileProviderRegistration?, enumerators: [Enumerator], lastSeenAt: Date
    ) {
        self.installation = installation
        self.widgets = widgets
        self.controls = controls
        self.fileProvider = fileProvider
        self.enumerators = enumerators
        self.lastSeenAt = lastSeenAt
    }
}
