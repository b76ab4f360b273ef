import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel

/// `/v1/apps`: apps and their credentials (admin key).
struct AppRoutes {
    let dependencies: APIDependencies

    func add(to router: Router<BasicRequestContext>) {
        let apps = router.group("v1/apps")
        apps.post { request, _ in try await create(request) }
        apps.get { request, _ in
            try dependencies.auth.requireAdmin(request)
            return Response.json(try await dependencies.stores.registry.apps().map(Self.response))
        }
        apps.get(":appId") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            guard let app = try await dependencies.stores.registry.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
            return Response.json(Self.response(app))
        }
        apps.delete(":appId") { request, context in
            try dependencies.auth.requireAdmin(request)
            try await dependencies.deleteApp(id: try context.parameters.require("appId"))
            return Response(status: .noContent)
        }
        apps.get(":appId/delivery") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            guard try await dependencies.apps.app(id: appId) != nil else { throw APIError.notFound("no app \(appId)") }
            return Response.json(Self.settings(try await dependencies.stores.delivery.pushIntervals(appId: appId)))
        }
        apps.put(":appId/delivery") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            var request = request
            let body = try await request.decodeJSON(DeliverySettings.self, limit: dependencies.configuration.bodyLimit)
            let intervals = try Validate.pushIntervals(body.minimumIntervalSeconds)
            try await dependencies.stores.delivery.setPushIntervals(appId: appId, intervals)
            return Response.json(Self.settings(intervals))
        }
        apps.post(":appId/server-key") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            return Response.json(ServerKeyResponse(appId: appId, serverKey: try await dependencies.rotateServerKey(appId: appId)))
        }
        apps.post(":appId/device-secret") { request, context in try await rotateDeviceSecret(request, context) }
        apps.get(":appId/apns-key") { request, context in
            try dependencies.auth.requireAdmin(request)
            return Response.json(try await dependencies.signingKeys(appId: try context.parameters.require("appId")))
        }
        apps.put(":appId/apns-key") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            var request = request
            let body = try await request.decodeJSON(SigningKeyRequest.self, limit: dependencies.configuration.bodyLimit)
            return Response.json(try await dependencies.replaceSigningKey(appId: appId, body))
        }
        apps.post(":appId/apns-key/check") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            var request = request
            let body = try await request.decodeJSON(SigningKeyRequest.self, limit: dependencies.configuration.bodyLimit, emptyAs: SigningKeyRequest())
            return Response.json(try await dependencies.checkCredentials(appId: appId, body))
        }
        apps.get(":appId/device-tokens") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            guard let app = try await dependencies.stores.registry.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
            return Response.json(DeviceTokenSettings(lifetimeSeconds: app.deviceTokenLifetime))
        }
        apps.put(":appId/device-tokens") { request, context in
            try dependencies.auth.requireAdmin(request)
            let appId = try context.parameters.require("appId")
            var request = request
            let body = try await request.decodeJSON(DeviceTokenSettings.self, limit: dependencies.configuration.bodyLimit)
            let seconds = try Validate.seconds(
                body.lifetimeSeconds, field: "lifetimeSeconds", in: Limits.deviceTokenLifetimeSeconds, default: AppRecord.defaultDeviceTokenLifetime
            )
            guard try await dependencies.stores.registry.setDeviceTokenLifetime(appId: appId, seconds: seconds) else {
                throw APIError.notFound("no app \(appId)")
            }
            dependencies.apps.removeAll()
            return Response.json(DeviceTokenSettings(lifetimeSeconds: seconds))
        }
    }

    /// `POST /v1/apps/{appId}/device-secret`: a new device secret, shown once; the previous one stays valid for
    /// `graceSeconds` (default 0: it stops at once).
    private func rotateDeviceSecret(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try dependencies.auth.requireAdmin(request)
        let appId = try context.parameters.require("appId")
        var request = request
        let body = try await request.decodeJSON(DeviceSecretRotation.self, limit: dependencies.configuration.bodyLimit, emptyAs: DeviceSecretRotation())
        let grace = try Validate.seconds(body.graceSeconds, field: "graceSeconds", in: Limits.secretGraceSeconds, default: 0)
        guard let app = try await dependencies.stores.registry.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
        let secrets = dependencies.secrets
        var previous: [UInt8]?
        var previousUntil: Date?
        if grace > 0 {
            // The current secret moves to the previous column: re-sealed, since a sealed value is bound to its column.
            let current = try secrets.open(app.sealedDeviceSecret, appId: appId, column: .deviceSecret)
            previous = try secrets.seal(current, appId: appId, column: .previousDeviceSecret)
            previousUntil = dependencies.now().addingTimeInterval(TimeInterval(grace))
        }
        let deviceSecret = Secret.generate(prefix: "sbd_")
        let sealed = try secrets.seal(deviceSecret, appId: appId, column: .deviceSecret)
        guard try await dependencies.stores.registry.rotateDeviceSecret(appId: appId, sealed: sealed, previous: previous, previousExpiresAt: previousUntil) else {
            throw APIError.notFound("no app \(appId)")
        }
        dependencies.apps.removeAll()
        // `NoStoreMiddleware` marks it `Cache-Control: no-store`, like every /v1/ response.
        return Response.json(
            DeviceSecretResponse(appId: appId, deviceSecret: deviceSecret, previousSecretValidUntil: previousUntil)
        )
    }

    private func create(_ request: Request) async throws -> Response {
        try dependencies.auth.requireAdmin(request)
        var request = request
        let body = try await request.decodeJSON(CreateAppRequest.self, limit: dependencies.configuration.bodyLimit)
        return Response.json(try await dependencies.createApp(body), status: .created)
    }

    static func settings(_ intervals: [PushKind: Int]) -> DeliverySettings {
        DeliverySettings(minimumIntervalSeconds: Dictionary(uniqueKeysWithValues: PushKind.allCases.map { ($0.rawValue, intervals[$0] ?? 0) }))
    }

    static func response(_ app: AppRecord) -> AppResponse {
        AppResponse(
            appId: app.id, bundleId: app.bundleId, teamId: app.teamId, keyId: app.keyId,
            environment: app.environment.rawValue, createdAt: app.createdAt,
            deviceTokenLifetimeSeconds: app.deviceTokenLifetime
        )
    }
}
