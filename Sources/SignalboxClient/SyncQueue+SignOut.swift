import Foundation
import SignalboxAPI

extension SyncQueue {
    /// The user signs out: deletes this installation on the server with the user's device JWT (so no push for
    /// that user reaches the device any more), then continues locally under a new installation id. The device's
    /// token registrations are kept in the store, unsent: they are registered under the next user's installation
    /// once `set(.installation(…))` names one. Call it while the backend still mints the signing-out user's JWT.
    ///
    /// Throws `SyncError` and changes nothing when the server could not be told (offline, 5xx): try again later,
    /// or delete the installation from the backend with the server key and call `startNewInstallation()`.
    public func signOut() async throws {
        let (id, user) = try store.update { state -> (String, String?) in
            guard case .installation(let request)? = state.entries["installation"]?.snapshot else { return (state.installationId, nil) }
            return (state.installationId, request.userId)
        }
        for attempt in 0..<2 {
            let token: String
            do {
                token = try await credentials.token(for: user)
            } catch {
                throw SyncError(key: "installation", status: nil, code: "credentials", message: "the device token could not be fetched: \(error)", at: clock.now)
            }
            let response: HTTPResponseData
            do {
                response = try await transport.send(try deleteRequest(installationId: id, token: token))
            } catch {
                throw SyncError(key: "installation", status: nil, code: "network", message: "\(error)", at: clock.now)
            }
            let detail = try? JSONDecoder().decode(ErrorResponse.self, from: response.body).error
            switch response.status {
            // Gone already, or registered to another user: either way not this user's any more.
            case 200..<300, 404:
                return try startNewInstallation(replacing: id)
            case 403 where detail?.code == Self.anotherUserCode:
                return try startNewInstallation(replacing: id)
            case 401 where attempt == 0:
                await credentials.invalidate(token)
            default:
                throw SyncError(
                    key: "installation", status: response.status, code: detail?.code ?? "http_\(response.status)",
                    message: detail?.message ?? "HTTP \(response.status)", at: clock.now
                )
            }
        }
    }

    /// Deletes the previous user's installations left by a user switch, with that user's last device JWT. Without
    /// one (another process switched, or it expired) they are left to the backend, and `lastError` says so.
    func deleteAbandonedInstallations(_ report: inout SyncReport) async throws {
        let ids = try store.update { $0.abandonedInstallationIds ?? [] }
        guard !ids.isEmpty else { return }
        let token = await credentials.previousUserToken()
        for id in ids {
            var error: SyncError?
            if let token {
                // 2xx, 404 and 403 (not that user's) all end the attempt; a failure that may pass is tried again.
                guard let response = try? await transport.send(try deleteRequest(installationId: id, token: token)),
                    !(response.status == 408 || response.status == 429 || response.status >= 500)
                else { return }
                if !(200..<300).contains(response.status), response.status != 404 {
                    error = SyncError(key: "installation", status: response.status, code: "abandoned_installation", message: "the previous user's installation \(id) was not deleted (HTTP \(response.status)); delete it with the server key", at: clock.now)
                }
            } else {
                error = SyncError(key: "installation", status: nil, code: "abandoned_installation", message: "the previous user's installation \(id) could not be deleted (no device token of that user); delete it with the server key", at: clock.now)
            }
            try store.update { state in
                state.abandonedInstallationIds?.removeAll { $0 == id }
                if state.abandonedInstallationIds?.isEmpty == true { state.abandonedInstallationIds = nil }
                if let error { state.lastError = error }
            }
            if let error { report.errors.append(error) }
        }
    }

    func deleteRequest(installationId id: String, token: String) throws -> HTTPRequestData {
        HTTPRequestData(method: "DELETE", url: try url(["v1", "apps", configuration.appId, "installations", id]), headers: ["Authorization": "Bearer " + token])
    }

    /// Continues under a new installation id without telling the server (the backend deletes the old one with
    /// the server key): the installation snapshot goes, token registrations wait for the next one.
    public func startNewInstallation() throws { try startNewInstallation(replacing: nil) }

    private func startNewInstallation(replacing old: String?) throws {
        try store.update { state in
            // Another process may have moved on already; its new id stays.
            guard old == nil || state.installationId == old else { return }
            state.moveToNewInstallation(configuration.makeInstallationId(), keepingInstallation: false)
            for (key, entry) in state.entries where entry.snapshot.isEnumerator { state.entries[key] = nil }
        }
        credentials.forgetToken()
    }
}
