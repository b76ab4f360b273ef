import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel

/// `/v1/apps/{appId}/installations/…`: the token registry (server key or device JWT).
struct InstallationRoutes {
    let dependencies: APIDependencies

    func add(to router: Router<BasicRequestContext>) {
        router.get("v1/apps/:appId/installations") { request, context in try await listInstallations(request, context) }
        let installation = router.group("v1/apps/:appId/installations/:installationId")
        installation.put { request, context in try await putInstallation(request, context) }
        installation.get { request, context in
            let ((appId, installationId), _) = try await authorize(request, context, deviceAllowed: false)
            guard let snapshot = try await dependencies.stores.registry.installation(appId: appId, id: installationId, now: dependencies.now()) else {
                throw APIError.notFound("no installation \(installationId)")
            }
            return Response.json(Self.response(snapshot))
        }
        installation.delete { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            _ = try await dependencies.stores.registry.deleteInstallation(appId: appId, id: installationId)
            return Response(status: .noContent)
        }
        installation.put("widgets") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            var request = request
            let body = try await request.decodeJSON(WidgetsRequest.self, limit: limit)
            let registration = try Validate.widgets(body)
            try await dependencies.stores.registry.putWidgets(
                appId: appId, installationId: installationId, registration, now: dependencies.now(), revision: try Validate.revision(body.revision)
            )
            return Response(status: .noContent)
        }
        installation.put("controls") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            var request = request
            let body = try await request.decodeJSON(ControlsRequest.self, limit: limit)
            let controls = try Validate.controls(body)
            try await dependencies.stores.registry.putControls(
                appId: appId, installationId: installationId, controls, now: dependencies.now(), revision: try Validate.revision(body.revision)
            )
            return Response(status: .noContent)
        }
        installation.put("file-provider") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            var request = request
            let body = try await request.decodeJSON(FileProviderRequest.self, limit: limit)
            let registration = try Validate.fileProvider(body)
            try await dependencies.stores.registry.putFileProvider(
                appId: appId, installationId: installationId, registration, now: dependencies.now(), revision: try Validate.revision(body.revision)
            )
            return Response(status: .noContent)
        }
        installation.delete("file-provider") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            let revision = try Validate.revision(query: try request.query(allowing: ["revision"])["revision"])
            _ = try await dependencies.stores.registry.deleteFileProvider(appId: appId, installationId: installationId, now: dependencies.now(), revision: revision)
            return Response(status: .noContent)
        }
        addReloads(to: installation)
        let enumerator = installation.group("file-provider/domains/:domainId/enumerators/:containerId")
        enumerator.put { request, context in
            let (appId, installationId, principal) = try await authorizeOwnerPrincipal(request, context)
            let (domain, container) = try enumeratorPath(context)
            var request = request
            let body = try await request.decodeJSON(EnumeratorRequest.self, limit: limit, emptyAs: EnumeratorRequest())
            let seconds = try Validate.lease(body.leaseSeconds, default: dependencies.configuration.defaultLeaseSeconds)
            let now = dependencies.now()
            let lease = Enumerator(domain: domain, container: container, expiresAt: now.addingTimeInterval(Double(seconds)))
            // Only device writes count against the quota; the app's server is not limited.
            let maxLive = principal.isDevice ? dependencies.configuration.quotas.enumeratorsPerInstallation : nil
            try await dependencies.stores.registry.putEnumerator(
                appId: appId, installationId: installationId, lease, now: now, maxLive: maxLive, revision: try Validate.revision(body.revision)
            )
            return Response.json(EnumeratorLease(domain: domain, container: container, expiresAt: lease.expiresAt))
        }
        enumerator.delete { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            let (domain, container) = try enumeratorPath(context)
            let revision = try Validate.revision(query: try request.query(allowing: ["revision"])["revision"])
            _ = try await dependencies.stores.registry.deleteEnumerator(
                appId: appId, installationId: installationId, domain: domain, container: container, now: dependencies.now(),
                revision: revision
            )
            return Response(status: .noContent)
        }
    }

    private var limit: Int { dependencies.configuration.bodyLimit }

    /// The 403 for an installation id registered to another user: the SDK answers it with a new installation id.
    static let anotherUserCode = "installation_of_another_user"

    /// A page of the app's installation ids, in id order (what `signalbox tokens export` reads).
    private func listInstallations(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let appId = try context.parameters.require("appId")
        _ = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: false)
        let query = try request.query(allowing: ["limit", "after"])
        let limit = try query["limit"].map { value in
            guard let limit = Int(value), (1...1000).contains(limit) else {
                throw APIError.invalid(ValidationError(field: "limit", "must be a whole number from 1 to 1000"))
            }
            return limit
        } ?? 100
        let after = query["after"]
        if let after { try Validate.identifier(after, field: "after") }
        let ids = try await dependencies.stores.deliveryLog.installationIds(appId: appId, after: after, limit: limit + 1)
        let page = Array(ids.prefix(limit))
        return Response.json(InstallationPage(installationIds: page, next: ids.count > limit ? page.last : nil))
    }

    private func putInstallation(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let ((appId, installationId), principal) = try await authorize(request, context, deviceAllowed: true)
        var request = request
        var body = try await request.decodeJSON(InstallationRequest.self, limit: limit)
        guard let app = try await dependencies.apps.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
        guard case .device(_, let userId, let allowedChannels) = principal else {
            let installation = try Validate.installation(body, id: installationId, defaultEnvironment: app.environment)
            try await dependencies.stores.registry.putInstallation(
                appId: appId, installation, now: dependencies.now(), maxPerUser: nil, revision: try Validate.revision(body.revision)
            )
            return Response(status: .noContent)
        }
        if body.userId == nil { body.userId = userId }
        guard body.userId == userId else {
            throw APIError(.forbidden, "forbidden", "a device may only register installations of its own user (the token's sub)")
        }
        if case .some(let owner) = try await dependencies.stores.registry.installationUser(appId: appId, id: installationId), owner != userId {
            throw APIError(.forbidden, Self.anotherUserCode, "this installation belongs to another user")
        }
        let installation = try Validate.installation(body, id: installationId, defaultEnvironment: app.environment)
        // Channels are vouched for by the backend: only those in the token's `channels` claim.
        let allowed = Set(allowedChannels)
        if let channel = installation.channels.first(where: { !allowed.contains($0) }) {
            throw APIError(.forbidden, "channel_not_allowed", "channel \(channel) is not in the device token's channels claim")
        }
        try await dependencies.stores.registry.putInstallation(
            appId: appId, installation, now: dependencies.now(), maxPerUser: dependencies.configuration.quotas.installationsPerUser,
            revision: try Validate.revision(body.revision)
        )
        return Response(status: .noContent)
    }

    private func authorize(
        _ request: Request, _ context: BasicRequestContext, deviceAllowed: Bool
    ) async throws -> (ids: (String, String), principal: Principal) {
        let appId = try context.parameters.require("appId")
        let installationId = try context.parameters.require("installationId")
        let principal = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: deviceAllowed)
        try Validate.identifier(installationId, field: "installationId")
        return ((appId, installationId), principal)
    }


    /// The app's server, or a device whose user owns the installation; 404 when it is not registered.
    func authorizeOwner(_ request: Request, _ context: BasicRequestContext) async throws -> (String, String) {
        let (appId, installationId, _) = try await authorizeOwnerPrincipal(request, context)
        return (appId, installationId)
    }

    private func authorizeOwnerPrincipal(_ request: Request, _ context: BasicRequestContext) async throws -> (String, String, Principal) {
        let ((appId, installationId), principal) = try await authorize(request, context, deviceAllowed: true)
        guard case .device(_, let userId, _) = principal else { return (appId, installationId, principal) }
        guard let owner = try await dependencies.stores.registry.installationUser(appId: appId, id: installationId) else {
            throw APIError.notFound("installation \(installationId) is not registered; PUT it first")
        }
        guard owner == userId else { throw APIError(.forbidden, Self.anotherUserCode, "this installation belongs to another user") }
        return (appId, installationId, principal)
    }

    private func enumeratorPath(_ context: BasicRequestContext) throws -> (String, String) {
        let domain = try context.parameters.require("domainId")
        let container = try context.parameters.require("containerId")
        try Validate.identifier(domain, field: "domainId")
        try Validate.identifier(container, field: "containerId", limit: Limits.kindLength)
        return (domain, container)
    }

    static func response(_ snapshot: InstallationSnapshot) -> InstallationResponse {
        let installation = snapshot.installation
        return InstallationResponse(
            installationId: installation.id, userId: installation.userId, channels: installation.channels,
            environment: installation.environment.rawValue,
            widgets: snapshot.widgets.map { WidgetsRequest(pushToken: $0.pushToken, widgets: $0.widgets) },
            controls: snapshot.controls,
            fileProvider: snapshot.fileProvider.map {
                InstallationResponse.FileProvider(
                    pushToken: $0.pushToken, domains: $0.domains,
                    enumerators: snapshot.enumerators.map {
                        EnumeratorLease(domain: $0.domain, container: $0.container, expiresAt: $0.expiresAt)
                    }
                )
            },
            lastSeenAt: snapshot.lastSeenAt
        )
    }
}
