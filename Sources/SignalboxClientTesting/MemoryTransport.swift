import Foundation
import SignalboxClient
import Synchronization

/// Records requests and answers each with `respond` (a network failure when it throws).
public final class MemoryTransport: HTTPTransport {
    public typealias Respond = @Sendable (HTTPRequestData) throws -> HTTPResponseData
    private let state: Mutex<(requests: [HTTPRequestData], respond: Respond)>

    public init(_ respond: @escaping Respond = { _ in HTTPResponseData(status: 204) }) { state = Mutex(([], respond)) }

    public func answer(_ respond: @escaping Respond) { state.withLock { $0.respond = respond } }

    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        let respond = state.withLock { state in
            state.requests.append(request)
            return state.respond
        }
        return try respond(request)
    }

    public var requests: [HTTPRequestData] { state.withLock { $0.requests } }
    /// "METHOD last-path-segments" of every request, e.g. "PUT controls".
    public var sent: [String] { requests.map { Self.describe($0) } }
    public func clear() { state.withLock { $0.requests = [] } }

    /// "METHOD path-after-the-installation", e.g. "PUT controls", or "PUT installation" for the installation itself.
    public static func describe(_ request: HTTPRequestData) -> String {
        let parts = request.url.path.split(separator: "/").dropFirst(5)
        return ([request.method] + (parts.isEmpty ? ["installation"] : parts.map(String.init))).joined(separator: " ")
    }

    /// The JSON body of a request as a dictionary.
    public static func json(_ request: HTTPRequestData) -> [String: Any] {
        request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }
}
