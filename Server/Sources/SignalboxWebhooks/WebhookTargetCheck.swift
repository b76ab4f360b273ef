import Foundation
import Synchronization

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
    /// How long a lookup is waited for (a hung resolver must not hold a delivery slot past its deadline).
    let lookupTimeout: Duration

    public init(
        allowPrivate: Bool, lookupTimeout: Duration = .seconds(5),
        resolve: @escaping @Sendable (String) async throws -> [NetworkAddress] = SystemResolver.addresses
    ) {
        self.allowPrivate = allowPrivate
        self.lookupTimeout = lookupTimeout
        self.resolve = resolve
    }

    /// The verdict on `url`'s host (a literal address is judged as is; a name by all of its addresses).
    public func check(url: String) async -> Verdict {
        if allowPrivate { return .allowed }
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return .unresolved("the URL names no host") }
        if let literal = NetworkAddress(host) { return Self.verdict([literal]) }
        let addresses: [NetworkAddress]
        do {
            addresses = try await Self.within(lookupTimeout) { [resolve] in try await resolve(host.lowercased()) }
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

    struct LookupTimedOut: Error {}

    /// The continuation a lookup and its timer race to resume: whichever comes first takes it.
    private final class Waiting<T: Sendable>: Sendable {
        private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
        func set(_ value: CheckedContinuation<T, any Error>) { continuation.withLock { $0 = value } }
        func take() -> CheckedContinuation<T, any Error>? { continuation.withLock { $0.take() } }
    }

    /// `work`'s result, or `LookupTimedOut` once `timeout` passes (a blocking lookup cannot be cancelled: it is left
    /// to finish on its own thread, and its answer dropped).
    static func within<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiting = Waiting<T>()
        return try await withCheckedThrowingContinuation { continuation in
            waiting.set(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                waiting.take()?.resume(throwing: LookupTimedOut())
            }
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                waiting.take()?.resume(with: result)
                timer.cancel()
            }
        }
    }
}
