import Foundation

/// Whether a webhook URL may be sent to: its host must be, and resolve only to, public addresses (unless the
/// operator allows private targets). Checked when an endpoint is created and again before every attempt, since a
/// name's addresses can change after creation. What remains: a name re-resolved between this check and the
/// connection (DNS rebinding) is not seen; the README says so.
public struct WebhookTargetCheck: Sendable {
    /// What the check found.
    public enum Verdict: Sendable, Equatable {
        case allowed
        /// The host is or resolves to a non-public address; the message is plain and names no address.
        case notPublic(String)
        /// The host did not resolve (a delivery is not sent; a new endpoint is accepted and checked at each send).
        case unresolved(String)
    }

    /// Every target allowed, none resolved (`webhooks.allowPrivateTargets`).
    public let allowPrivate: Bool
    /// A host's addresses (`SystemResolver.addresses` in production).
    let resolve: @Sendable (String) async throws -> [NetworkAddress]

    public init(allowPrivate: Bool, resolve: @escaping @Sendable (String) async throws -> [NetworkAddress] = SystemResolver.addresses) {
        self.allowPrivate = allowPrivate
        self.resolve = resolve
    }

    /// The verdict on `url`'s host (a literal address is judged as is; a name by all of its addresses).
    public func check(url: String) async -> Verdict {
        if allowPrivate { return .allowed }
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return .unresolved("the URL names no host") }
        if let literal = NetworkAddress(host) { return Self.verdict([literal]) }
        let addresses: [NetworkAddress]
        do {
            addresses = try await resolve(host.lowercased())
        } catch {
            return .unresolved("the endpoint's host did not resolve")
        }
        guard !addresses.isEmpty else { return .unresolved("the endpoint's host did not resolve") }
        return Self.verdict(addresses)
    }

    /// `.allowed` when every address is public (a client may connect to any of them).
    static func verdict(_ addresses: [NetworkAddress]) -> Verdict {
        guard let range = addresses.lazy.compactMap(\.nonPublicRange).first else { return .allowed }
        return .notPublic(
            "the endpoint's host is or resolves to a \(range.rawValue) address; webhooks are sent to public addresses only "
                + "(the operator can allow private ones with webhooks.allowPrivateTargets)"
        )
    }
}
