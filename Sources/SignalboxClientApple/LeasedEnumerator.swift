#if canImport(FileProvider)
import FileProvider
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if canImport(FileProvider) || SIGNALBOX_APPLE_STUBS
import Foundation

/// Wraps the extension's own enumerator: while it lives, Signalbox pushes changes of its container to this
/// device; `invalidate()` stops them. The working set and replicated domains are not leased (always pushed).
@available(iOS 16.0, macOS 13.0, *)
public final class LeasedEnumerator: NSObject, NSFileProviderEnumerator {
    private let inner: any NSFileProviderEnumerator
    private let domain: String
    private let container: String

    /// Returned from `enumerator(for:request:)` in place of `inner`.
    public init(_ inner: any NSFileProviderEnumerator, domain: String, container: NSFileProviderItemIdentifier) {
        self.inner = inner
        self.domain = domain
        self.container = container.rawValue
        super.init()
        guard let signalbox = SignalboxApple.current else { return }
        let (domain, container) = (domain, container.rawValue)
        signalbox.keepLeasesRenewed()
        Task {
            _ = try? await signalbox.leases.open(domain: domain, container: container)
            await signalbox.sync()
        }
    }

    public func invalidate() {
        inner.invalidate()
        guard let signalbox = SignalboxApple.current else { return }
        let (domain, container) = (domain, container)
        Task {
            try? await signalbox.leases.invalidate(domain: domain, container: container)
            await signalbox.sync()
        }
    }

    public func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        inner.enumerateItems(for: observer, startingAt: page)
    }

    public func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor) {
        inner.enumerateChanges(for: observer, from: syncAnchor)
    }

    public func currentSyncAnchor(completionHandler: @escaping (NSFileProviderSyncAnchor?) -> Void) {
        inner.currentSyncAnchor(completionHandler: completionHandler)
    }
}
#endif
