import Foundation
import SignalboxAPI

/// Reload receipts: the timeline or value provider reports that a kind reloaded; the receipts wait in the store and
/// go in batches with the next `sync()`. A network failure or a 5xx keeps them; a 4xx drops the batch (sending it
/// again cannot change the answer) and says why in `lastError` and the report.
extension SyncQueue {
    /// Receipts in one request (the server takes at most 100).
    static let reloadsPerRequest = 100
    /// Receipts kept while the server cannot be reached; the oldest go first beyond this.
    static let pendingReloadsLimit = 1_000

    /// Records that `kind` reloaded now. Cheap: one store update, no network.
    public func recordReload(kind: String, pushType: ReloadPushType) throws {
        let receipt = PendingReload(kind: kind, pushType: pushType, at: clock.now)
        try store.update { state in
            var pending = state.pendingReloads ?? []
            pending.append(receipt)
            if pending.count > Self.pendingReloadsLimit { pending.removeFirst(pending.count - Self.pendingReloadsLimit) }
            state.pendingReloads = pending
        }
    }

    /// Sends the pending receipts, a batch per request, once the installation is registered and no back-off holds.
    func sendReloads(_ report: inout SyncReport) async throws {
        for _ in 0..<(Self.pendingReloadsLimit / Self.reloadsPerRequest + 1) {
            let now = clock.now
            let next = try store.update { state -> (batch: [PendingReload], installation: String, user: String?)? in
                guard let pending = state.pendingReloads, !pending.isEmpty, state.entries["installation"]?.acknowledgedRevision != nil,
                    (state.retryAt.map { $0 <= now } ?? true)
                else { return nil }
                guard case .installation(let request)? = state.entries["installation"]?.snapshot else { return nil }
                return (Array(pending.prefix(Self.reloadsPerRequest)), state.installationId, request.userId)
            }
            guard let next else { return }
            let failure = await postReloads(next.batch, installationId: next.installation, user: next.user)
            let keep = failure.map { $0.status == nil || $0.status == 401 || $0.status == 408 || $0.status == 429 || $0.status! >= 500 } ?? false
            try store.update { state in
                if !keep { state.pendingReloads = Self.removing(next.batch, from: state.pendingReloads ?? []) }
                if let failure, !keep { state.lastError = failure }
            }
            if let failure {
                report.errors.append(failure)
                if keep { return }
            } else {
                report.reloadsSent += next.batch.count
            }
        }
    }

    /// One `POST …/reloads`; nil when the server took it, else why not.
    private func postReloads(_ batch: [PendingReload], installationId: String, user: String?) async -> SyncError? {
        func failure(_ status: Int?, _ code: String, _ message: String) -> SyncError {
            SyncError(key: "reloads", status: status, code: code, message: message, at: clock.now)
        }
        let token: String
        do {
            token = try await credentials.token(for: user)
        } catch {
            return failure(nil, "credentials", "the device token could not be fetched: \(error)")
        }
        let request: HTTPRequestData
        do {
            let body = ReloadsRequest(reloads: batch.map { ReloadReceiptBody(kind: $0.kind, pushType: $0.pushType.rawValue, at: $0.at) })
            request = HTTPRequestData(
                method: "POST", url: try url(["v1", "apps", configuration.appId, "installations", installationId, "reloads"]),
                headers: ["Authorization": "Bearer " + token, "Content-Type": "application/json"], body: try SignalboxJSON.makeEncoder().encode(body)
            )
        } catch {
            return failure(0, "encoding", "\(error)")
        }
        let response: HTTPResponseData
        do {
            response = try await transport.send(request)
        } catch {
            return failure(nil, "network", "\(error)")
        }
        if (200..<300).contains(response.status) { return nil }
        if response.status == 401 { await credentials.invalidate(token) }
        let detail = try? JSONDecoder().decode(ErrorResponse.self, from: response.body).error
        return failure(response.status, detail?.code ?? "http_\(response.status)", detail?.message ?? "HTTP \(response.status)")
    }

    /// `pending` without the receipts of `batch` (another process may have added receipts meanwhile).
    static func removing(_ batch: [PendingReload], from pending: [PendingReload]) -> [PendingReload] {
        var pending = pending
        for receipt in batch {
            if let index = pending.firstIndex(of: receipt) { pending.remove(at: index) }
        }
        return pending
    }
}
