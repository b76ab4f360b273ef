import Foundation
import SignalboxClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that fails like a device without network while switched off.
final class NetworkSwitch: HTTPTransport {
    private let transport: any HTTPTransport
    let online = Box(true)

    init(_ transport: any HTTPTransport) { self.transport = transport }

    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        guard online.value else { throw URLError(.notConnectedToInternet) }
        return try await transport.send(request)
    }
}
