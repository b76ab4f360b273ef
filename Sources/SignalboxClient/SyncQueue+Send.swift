import Foundation
import SignalboxAPI

/// One registration request and the classification of its answer.
extension SyncQueue {
    enum SendOutcome: Sendable {
        case acknowledged
        /// 409 `stale_revision`: the server holds this newer revision.
        case superseded(Int64)
        case notFound(String)
        /// 403 `installation_of_another_user`: the id is registered to another user (a user switch in another
        /// process, a restored backup); this device needs an installation of its own.
        case ownedByAnotherUser(String)
        case unauthorized(String)
        /// 400, 403, 413 and other refusals that sending again cannot change.
        case refused(status: Int, code: String, message: String)
        /// Network failure, 408, 429, 5xx.
        case retryLater(status: Int?, code: String, message: String, retryAfter: TimeInterval?)
    }

    /// - Parameter user: the installation's user: a cached JWT of another user is not used.
    func send(_ pick: Pick, installationId: String, user: String?) async -> SendOutcome {
        let token: String
        do {
            token = try await credentials.token(for: user)
        } catch {
            return .retryLater(status: nil, code: "credentials", message: "the device token could not be fetched: \(error)", retryAfter: nil)
        }
        let request: HTTPRequestData
        do {
            request = try makeRequest(pick, installationId: installationId, token: token)
        } catch {
            return .refused(status: 0, code: "encoding", message: "\(error)")
        }
        let response: HTTPResponseData
        do {
            response = try await transport.send(request)
        } catch {
            return .retryLater(status: nil, code: "network", message: "\(error)", retryAfter: nil)
        }
        let detail = try? JSONDecoder().decode(ErrorResponse.self, from: response.body).error
        let code = detail?.code ?? "http_\(response.status)"
        let message = detail?.message ?? "HTTP \(response.status)"
        switch response.status {
        case 200..<300:
            return .acknowledged
        case 401:
            await credentials.invalidate(token)
            return .unauthorized(message)
        case 404 where pick.snapshot.isRemoval && pick.snapshot.key == "file-provider":
            return .acknowledged
        case 404:
            return .notFound(message)
        case 403 where code == Self.anotherUserCode:
            return .ownedByAnotherUser(message)
        case 409 where detail?.currentRevision != nil:
            guard let current = detail?.currentRevision, current > pick.revision else { return .acknowledged }
            return .superseded(current)
        case 408, 429, 500...:
            let retryAfter = Backoff.retryAfter(response.headers["retry-after"], now: clock.now)
            return .retryLater(status: response.status, code: code, message: message, retryAfter: retryAfter)
        default:
            return .refused(status: response.status, code: code, message: message)
        }
    }

    /// The HTTP request for a snapshot, with its revision.
    func makeRequest(_ pick: Pick, installationId: String, token: String) throws -> HTTPRequestData {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var path = ["v1", "apps", configuration.appId, "installations", installationId]
        var method = "PUT"
        var query = ""
        let body: Data?
        switch pick.snapshot {
        case .installation(var request):
            request.revision = pick.revision
            body = try encoder.encode(request)
        case .widgets(var request):
            request.revision = pick.revision
            path.append("widgets")
            body = try encoder.encode(request)
        case .controls(var request):
            request.revision = pick.revision
            path.append("controls")
            body = try encoder.encode(request)
        case .fileProvider(var request):
            request.revision = pick.revision
            path.append("file-provider")
            body = try encoder.encode(request)
        case .enumeratorLease(let domain, let container, let seconds, _):
            path += ["file-provider", "domains", domain, "enumerators", container]
            body = try encoder.encode(EnumeratorRequest(leaseSeconds: seconds, revision: pick.revision))
        case .enumeratorGone(let domain, let container):
            path += ["file-provider", "domains", domain, "enumerators", container]
            method = "DELETE"
            query = "?revision=\(pick.revision)"
            body = nil
        case .fileProviderGone:
            path.append("file-provider")
            method = "DELETE"
            query = "?revision=\(pick.revision)"
            body = nil
        }
        let url = try url(path, query: query)
        var headers = ["Authorization": "Bearer " + token]
        if body != nil { headers["Content-Type"] = "application/json" }
        return HTTPRequestData(method: method, url: url, headers: headers, body: body)
    }

    /// Signalbox's URL for the path segments, each percent-encoded.
    func url(_ path: [String], query: String = "") throws -> URL {
        let encoded = path.map { $0.addingPercentEncoding(withAllowedCharacters: Self.segment) ?? $0 }.joined(separator: "/")
        let base = configuration.baseURL.absoluteString.hasSuffix("/") ? String(configuration.baseURL.absoluteString.dropLast()) : configuration.baseURL.absoluteString
        guard let url = URL(string: base + "/" + encoded + query) else { throw URLError(.badURL) }
        return url
    }

    /// The server's error code for an installation id registered to another user.
    static let anotherUserCode = "installation_of_another_user"

    /// Characters a path segment keeps as they are (RFC 3986 unreserved).
    private static let segment = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}
