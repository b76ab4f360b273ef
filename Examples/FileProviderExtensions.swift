#if os(Linux)
import AppleFrameworkStubs
import Foundation
import SignalboxClientApple

// snippet: replicated
/// A replicated extension (macOS; iOS 16 and later): the system reads pushes for the working set only, so Signalbox
/// always pushes it that and leases nothing. Register the domain with `replicated: true`.
final class PhotosExtension: NSObject, NSFileProviderReplicatedExtension {
    private let push = FileProviderPushDelegate()     // the PushKit .fileProvider token → Signalbox

    required init(domain: NSFileProviderDomain) {
        SignalboxApple.configure(.myApp).enumerators(of: Self.self, domain: domain)   // checks the domain's kind
        super.init()
    }

    func enumerator(for container: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator {
        try PhotosEnumerator(container)   // the app's own enumerator, unchanged
    }

    func invalidate() {}
    // item(for:…), fetchContents(for:…), createItem…, modifyItem…, deleteItem… as usual.
}
// end snippet

// snippet: non-replicated
/// A non-replicated extension (iOS): each open container is leased, so the server pushes it only while an
/// enumerator is alive. Register the domain with `replicated: false`.
final class DocumentsExtension: NSFileProviderExtension {
    private let push = FileProviderPushDelegate()
    private let enumerators: SignalboxEnumerators

    override init() {
        enumerators = SignalboxApple.configure(.myApp).enumerators(of: Self.self, domain: "acct-7")
        super.init()
    }

    override func enumerator(for container: NSFileProviderItemIdentifier) throws -> any NSFileProviderEnumerator {
        FolderEnumerator(container, signalbox: enumerators)
    }
}

/// The app's enumerator tells Signalbox when it opens and when it is invalidated; nothing wraps it.
final class FolderEnumerator: NSObject, NSFileProviderEnumerator {
    private let container: NSFileProviderItemIdentifier
    private let signalbox: SignalboxEnumerators

    init(_ container: NSFileProviderItemIdentifier, signalbox: SignalboxEnumerators) {
        self.container = container
        self.signalbox = signalbox
        super.init()
        signalbox.opened(container)          // leased, renewed while the extension is awake
    }

    func invalidate() {
        signalbox.invalidated(container)     // the lease ends with the container's last enumerator
    }

    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        observer.finishEnumerating(upTo: nil)
    }
}
// end snippet

/// The photos domain's enumerator (the app's own).
final class PhotosEnumerator: NSObject, NSFileProviderEnumerator {
    init(_ container: NSFileProviderItemIdentifier) throws {}
    func invalidate() {}
    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        observer.finishEnumerating(upTo: nil)
    }
}
#endif
