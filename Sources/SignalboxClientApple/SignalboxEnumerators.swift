#if canImport(FileProvider) && !targetEnvironment(macCatalyst) && !os(watchOS) && !os(tvOS)
import FileProvider
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if (canImport(FileProvider) && !targetEnvironment(macCatalyst) && !os(watchOS) && !os(tvOS)) || SIGNALBOX_APPLE_STUBS
import Foundation
import SignalboxClient
import Synchronization

/// Signalbox's side of one File Provider extension's enumerators. The extension's own enumerator calls `opened`
/// when it is created and `invalidated` from its `invalidate()`; nothing wraps or forwards the enumerator, so the
/// system sees exactly the methods the app's enumerator implements.
///
/// Which kind of extension it serves decides what happens, as Apple specifies: a replicated extension
/// (`NSFileProviderReplicatedExtension`) is pushed the working set only and the system ignores any other container,
/// so its enumerators are never leased; a non-replicated one (`NSFileProviderExtension`, iOS) leases each open
/// container, renewed at half the lease while the extension is awake, until its last enumerator is invalidated.
public final class SignalboxEnumerators: Sendable {
    public enum Kind: Sendable, Hashable { case replicated, nonReplicated }

    public let domain: String
    public let kind: Kind
    private let signalbox: SignalboxApple
    /// Open enumerators per container: the lease ends with the last one.
    private let open = Mutex<[String: Int]>([:])
    /// The lease work in call order (an invalidation never overtakes its opening).
    private let last = Mutex<Task<Void, Never>?>(nil)

    init(signalbox: SignalboxApple, domain: String, kind: Kind) {
        self.signalbox = signalbox
        self.domain = domain
        self.kind = kind
    }

    /// An enumerator for `container` was created. Returns the lease work (tests await it; apps need not).
    @discardableResult
    public func opened(_ container: NSFileProviderItemIdentifier) -> Task<Void, Never>? {
        guard kind == .nonReplicated, container != .workingSet else { return nil }
        let first = open.withLock { counts in
            counts[container.rawValue, default: 0] += 1
            return counts[container.rawValue] == 1
        }
        guard first else { return nil }
        let (signalbox, domain) = (signalbox, domain)
        signalbox.keepLeasesRenewed()
        return chain {
            _ = try? await signalbox.leases.open(domain: domain, container: container.rawValue)
            await signalbox.sync()
        }
    }

    /// The enumerator for `container` was invalidated (call from its `invalidate()`).
    @discardableResult
    public func invalidated(_ container: NSFileProviderItemIdentifier) -> Task<Void, Never>? {
        guard kind == .nonReplicated, container != .workingSet else { return nil }
        let lastOne = open.withLock { counts in
            guard let count = counts[container.rawValue] else { return false }
            counts[container.rawValue] = count > 1 ? count - 1 : nil
            return count == 1
        }
        guard lastOne else { return nil }
        let (signalbox, domain) = (signalbox, domain)
        return chain {
            try? await signalbox.leases.invalidate(domain: domain, container: container.rawValue)
            await signalbox.sync()
        }
    }

    private func chain(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        last.withLock { previous in
            let next = Task { [previous] in
                await previous?.value
                await work()
            }
            previous = next
            return next
        }
    }
}

extension SignalboxApple {
    /// The enumerators of a replicated extension (`NSFileProviderReplicatedExtension`): never leased, since the
    /// server always pushes its working set. Call from the extension's `init(domain:)` with its type.
    @available(iOS 16.0, macOS 11.0, visionOS 1.0, *)
    @discardableResult
    public func enumerators(of extensionType: any NSFileProviderReplicatedExtension.Type, domain: NSFileProviderDomain) -> SignalboxEnumerators {
        checkDomain(domain.identifier.rawValue, replicated: true)
        return SignalboxEnumerators(signalbox: self, domain: domain.identifier.rawValue, kind: .replicated)
    }

    #if !os(macOS)
    /// The enumerators of a non-replicated extension (`NSFileProviderExtension`, iOS and visionOS): each open
    /// container is leased. `domain` is the id registered in `configuration.fileProviderDomains`. Call from the
    /// extension's `init()` with its type.
    @available(macOS, unavailable)
    public func enumerators(of extensionType: NSFileProviderExtension.Type, domain: String) -> SignalboxEnumerators {
        checkDomain(domain, replicated: false)
        return SignalboxEnumerators(signalbox: self, domain: domain, kind: .nonReplicated)
    }
    #endif

    /// A domain registered as the other kind would be pushed wrongly (a replicated one leased, or a non-replicated
    /// one sent working-set pushes it does not read): caught in debug builds.
    private func checkDomain(_ id: String, replicated: Bool) {
        guard let registered = configuration.fileProviderDomains.first(where: { $0.id == id }) else { return }
        assert(
            registered.replicated == replicated,
            "Signalbox: File Provider domain \(id) is registered with replicated: \(registered.replicated), but its extension is \(replicated ? "replicated" : "not replicated")"
        )
    }
}
#endif
