import Foundation
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel

/// Creating, rotating and deleting apps: shared by the `/v1/apps` API and the dashboard.
extension APIDependencies {
    /// Validates and stores a new app. - Returns: the app with its server key and device secret (shown once).
    /// - Throws: `APIError` naming the bad field.
    package func createApp(_ body: CreateAppRequest) async throws -> AppCreatedResponse {
        guard body.bundleId.count <= 155, body.bundleId.range(of: #"^[A-Za-z0-9][A-Za-z0-9.\-]*$"#, options: .regularExpression) != nil else {
            throw APIError.invalid(ValidationError(field: "bundleId", "must be a bundle id such as com.example.app"))
        }
        let environment = try Validate.environment(body.environment, field: "environment")
        do {
            _ = try SigningKey(pem: body.privateKey, keyId: body.keyId, teamId: body.teamId)
        } catch {
            throw APIError.invalid(ValidationError(field: Self.field(of: error.message), error.message))
        }
        let lifetime = try Validate.seconds(
            body.deviceTokenLifetimeSeconds, field: "deviceTokenLifetimeSeconds", in: Limits.deviceTokenLifetimeSeconds,
            default: AppRecord.defaultDeviceTokenLifetime
        )
        let serverKey = Secret.generate(prefix: "sbk_")
        let deviceSecret = Secret.generate(prefix: "sbd_")
        let appId = RandomID.make()
        let app = AppRecord(
            id: appId, bundleId: body.bundleId, teamId: body.teamId, keyId: body.keyId,
            environment: environment, sealedPrivateKey: try secrets.seal(body.privateKey, appId: appId, column: .privateKey),
            sealedDeviceSecret: try secrets.seal(deviceSecret, appId: appId, column: .deviceSecret),
            serverKeyHash: Secret.hash(serverKey), createdAt: now(), deviceTokenLifetime: lifetime
        )
        try await stores.registry.createApp(app)
        return AppCreatedResponse(app: AppRoutes.response(app), serverKey: serverKey, deviceSecret: deviceSecret)
    }

    /// A new server key for the app (the old one stops at once). - Returns: the key, to be shown once.
    package func rotateServerKey(appId: String) async throws -> String {
        let serverKey = Secret.generate(prefix: "sbk_")
        guard try await stores.registry.updateServerKeyHash(appId: appId, hash: Secret.hash(serverKey)) else {
            throw APIError.notFound("no app \(appId)")
        }
        apps.removeAll()
        return serverKey
    }

    /// Deletes the app with all its data. - Throws: `APIError.notFound`.
    package func deleteApp(id appId: String) async throws {
        guard try await stores.registry.deleteApp(id: appId) else { throw APIError.notFound("no app \(appId)") }
        credentials.forget(appId: appId)
        apps.removeAll()
    }

    /// Which request field a `SigningKey` complaint is about.
    static func field(of message: String) -> String {
        message.contains("team") ? "teamId" : message.lowercased().contains("key id") ? "keyId" : "privateKey"
    }
}
