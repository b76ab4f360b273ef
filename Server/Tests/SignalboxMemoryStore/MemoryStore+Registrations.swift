import Foundation
import SignalboxAPI
import SignalboxModel

/// Installations and what they registered.
extension MemoryStore {
    public func putInstallation(appId: String, _ installation: Installation, now: Date) async throws {
        try await putInstallation(appId: appId, installation, now: now, maxPerUser: nil, revision: nil)
    }

    public func putInstallation(appId: String, _ installation: Installation, now: Date, maxPerUser: Int?, revision: Int64?) async throws {
        try withState { state in
            let key = InstallationKey(appId: appId, id: installation.id)
            if let maxPerUser, let userId = installation.userId {
                let count = state.installations.filter { $0.key.appId == appId && $0.value.installation.userId == userId }.count
                try Quotas.checkInstallation(isNew: state.installations[key] == nil, existing: count, maximum: maxPerUser)
            }
            if let revision { try state.claimRevision(appId: appId, installationId: installation.id, resource: "installation", revision) }
            if var stored = state.installations[key] {
                stored.installation = installation
                stored.lastSeen = now.milliseconds
                state.installations[key] = stored
            } else {
                state.installations[key] = StoredInstallation(installation: installation, lastSeen: now.milliseconds)
            }
        }
    }

    public func installationUser(appId: String, id: String) async throws -> String?? {
        withState { state in
            guard let stored = state.installations[InstallationKey(appId: appId, id: id)] else { return nil }
            return .some(stored.installation.userId)
        }
    }

    public func installation(appId: String, id: String, now: Date) async throws -> InstallationSnapshot? {
        withState { state in
            guard let stored = state.installations[InstallationKey(appId: appId, id: id)] else { return nil }
            let live = stored.enumerators.filter { $0.value > now.milliseconds }.sorted { $0.key < $1.key }
            return InstallationSnapshot(
                installation: stored.installation, widgets: stored.widgets, controls: stored.controls, fileProvider: stored.fileProvider,
                enumerators: live.map { Enumerator(domain: $0.key.domain, container: $0.key.container, expiresAt: Date(milliseconds: $0.value)) },
                lastSeenAt: Date(milliseconds: stored.lastSeen)
            )
        }
    }

    public func deleteInstallation(appId: String, id: String) async throws -> Bool {
        withState { state in
            guard state.installations.removeValue(forKey: InstallationKey(appId: appId, id: id)) != nil else { return false }
            state.revisions = state.revisions.filter { $0.key.appId != appId || $0.key.installationId != id }
            return true
        }
    }

    public func putWidgets(appId: String, installationId: String, _ registration: WidgetRegistration, now: Date, revision: Int64?) async throws {
        try writeRegistration(appId: appId, installationId: installationId, now: now, resource: "widgets", revision: revision) { state, key in
            let writer = state.installations[key]!
            state.installations[key]!.widgetsSeen = now.milliseconds
            guard writer.widgets != registration else { return }
            state.installations[key]!.widgets = registration
            state.giveUp(registration.pushToken, to: key) { if $0.widgets?.pushToken == registration.pushToken { $0.widgets = nil } }
        }
    }

    public func putControls(appId: String, installationId: String, _ controls: [Control], now: Date, revision: Int64?) async throws {
        try writeRegistration(appId: appId, installationId: installationId, now: now, resource: "controls", revision: revision) { state, key in
            let writer = state.installations[key]!
            state.installations[key]!.controlsSeen = now.milliseconds
            guard writer.controls != controls else { return }
            state.installations[key]!.controls = controls
            for token in Set(controls.map(\.pushToken)) {
                state.giveUp(token, to: key) { $0.controls.removeAll { $0.pushToken == token } }
            }
        }
    }

    public func putFileProvider(appId: String, installationId: String, _ registration: FileProviderRegistration, now: Date, revision: Int64?) async throws {
        try writeRegistration(appId: appId, installationId: installationId, now: now, resource: "file-provider", revision: revision) { state, key in
            let writer = state.installations[key]!
            state.installations[key]!.fileProviderSeen = now.milliseconds
            guard writer.fileProvider != registration else { return }
            let domains = registration.domains.sorted { $0.id < $1.id }
            state.installations[key]!.fileProvider = FileProviderRegistration(pushToken: registration.pushToken, domains: domains)
            state.giveUp(registration.pushToken, to: key) {
                guard $0.fileProvider?.pushToken == registration.pushToken else { return }
                $0.fileProvider = nil
                $0.enumerators = [:]
            }
            // Enumerators of domains that are gone end with them (all of them when no domain is left).
            let kept = Set(domains.map(\.id))
            state.installations[key]!.enumerators = writer.enumerators.filter { kept.isEmpty ? false : kept.contains($0.key.domain) }
        }
    }

    public func deleteFileProvider(appId: String, installationId: String, now: Date, revision: Int64?) async throws -> Bool {
        try writeRegistration(appId: appId, installationId: installationId, now: now, resource: "file-provider", revision: revision) { state, key in
            let found = state.installations[key]!.fileProvider != nil
            state.installations[key]!.fileProvider = nil
            state.installations[key]!.enumerators = [:]
            return found
        }
    }

    public func putEnumerator(appId: String, installationId: String, _ enumerator: Enumerator, now: Date, maxLive: Int?, revision: Int64?) async throws {
        let resource = "enumerator/\(enumerator.domain)/\(enumerator.container)"
        try writeRegistration(appId: appId, installationId: installationId, now: now, resource: resource, revision: revision) { state, key in
            let stored = state.installations[key]!
            guard stored.fileProvider?.domains.contains(where: { $0.id == enumerator.domain }) == true else {
                throw StoreError(.notFound, "domain \(enumerator.domain) is not registered for this installation; PUT .../file-provider first")
            }
            let id = EnumeratorKey(domain: enumerator.domain, container: enumerator.container)
            let live = stored.enumerators.filter { $0.value > now.milliseconds }
            try Quotas.checkEnumerator(isRenewal: live[id] != nil, live: live.count, maximum: maxLive)
            state.installations[key]!.enumerators[id] = enumerator.expiresAt.milliseconds
        }
    }

    public func deleteEnumerator(appId: String, installationId: String, domain: String, container: String, now: Date, revision: Int64?) async throws -> Bool {
        try withState { state in
            // As the SQL: no check that the installation exists; the revision is recorded all the same.
            if let revision {
                try state.claimRevision(appId: appId, installationId: installationId, resource: "enumerator/\(domain)/\(container)", revision)
            }
            let key = InstallationKey(appId: appId, id: installationId)
            guard state.installations[key] != nil else { return false }
            state.installations[key]!.lastSeen = now.milliseconds
            return state.installations[key]!.enumerators.removeValue(forKey: EnumeratorKey(domain: domain, container: container)) != nil
        }
    }

    public func deleteExpiredEnumerators(now: Date) async throws -> Int {
        withState { state in
            var count = 0
            for (key, stored) in state.installations {
                let kept = stored.enumerators.filter { $0.value > now.milliseconds }
                count += stored.enumerators.count - kept.count
                state.installations[key]!.enumerators = kept
            }
            return count
        }
    }

    /// Runs a registration write for an existing installation and marks it seen. The revision is claimed before the
    /// write's own checks, as on the SQL backends (a write refused by them keeps the claimed revision).
    @discardableResult
    private func writeRegistration<T>(
        appId: String, installationId: String, now: Date, resource: String, revision: Int64?,
        _ body: (inout MemoryState, InstallationKey) throws -> T
    ) throws -> T {
        try withState { state in
            let key = InstallationKey(appId: appId, id: installationId)
            guard state.installations[key] != nil else {
                throw StoreError(.notFound, "installation \(installationId) is not registered; PUT it first")
            }
            if let revision { try state.claimRevision(appId: appId, installationId: installationId, resource: resource, revision) }
            let result = try body(&state, key)
            state.installations[key]!.lastSeen = now.milliseconds
            return result
        }
    }
}

extension MemoryState {
    /// Records a client's revision of a resource, or refuses an older one with the current revision.
    mutating func claimRevision(appId: String, installationId: String, resource: String, _ revision: Int64) throws {
        let key = RevisionKey(appId: appId, installationId: installationId, resource: resource)
        if let current = revisions[key], current > revision {
            throw StoreError(.conflict, "revision \(revision) of \(resource) is older than the current revision \(current)", currentRevision: current)
        }
        revisions[key] = revision
    }

    /// A token belongs to one device: the writer's user's other installations (or, without a user, other
    /// installations without one) that hold `token` give it up through `drop`; another user's keep it.
    mutating func giveUp(_ token: String, to writer: InstallationKey, _ drop: (inout StoredInstallation) -> Void) {
        guard let user = installations[writer].map({ $0.installation.userId }) else { return }
        for (key, stored) in installations where key.appId == writer.appId && key.id != writer.id && stored.installation.userId == user {
            drop(&installations[key]!)
        }
    }
}
