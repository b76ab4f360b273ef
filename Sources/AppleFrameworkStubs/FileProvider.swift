#if os(Linux)
import Foundation

// FileProvider as Apple's SDK declares it (NSFileProviderEnumerating.h, NSFileProviderDefines.h, FileProvider DocC;
// see docs/apple-symbols.md), reduced to what SignalboxClientApple and its examples touch. `@objc optional`
// requirements are requirements here with default implementations (no Objective-C on Linux); the glue never calls
// them. Availability: the enumeration API is iOS 11 / macOS 11 / visionOS 1, not Mac Catalyst, watchOS or tvOS.

@available(iOS 8.0, macOS 11.0, visionOS 1.0, *)
public struct NSFileProviderItemIdentifier: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

extension NSFileProviderItemIdentifier {
    @available(iOS 11.0, macOS 11.0, *)
    public static let rootContainer = NSFileProviderItemIdentifier("NSFileProviderRootContainerItemIdentifier")
    @available(iOS 11.0, macOS 11.0, *)
    public static let workingSet = NSFileProviderItemIdentifier("NSFileProviderWorkingSetContainerItemIdentifier")
    @available(iOS 16.0, macOS 11.0, *)
    public static let trashContainer = NSFileProviderItemIdentifier("NSFileProviderTrashContainerItemIdentifier")
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
public struct NSFileProviderDomainIdentifier: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
public struct NSFileProviderPage: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: Data
    public init(rawValue: Data) { self.rawValue = rawValue }
    public init(_ rawValue: Data) { self.rawValue = rawValue }
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
public struct NSFileProviderSyncAnchor: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: Data
    public init(rawValue: Data) { self.rawValue = rawValue }
    public init(_ rawValue: Data) { self.rawValue = rawValue }
}

/// Reduced to the identifier (Apple's has the item's metadata).
public protocol NSFileProviderItemProtocol: NSObjectProtocol {
    var itemIdentifier: NSFileProviderItemIdentifier { get }
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
public protocol NSFileProviderEnumerationObserver: NSObjectProtocol {
    func didEnumerate(_ updatedItems: [any NSFileProviderItemProtocol])
    func finishEnumerating(upTo nextPage: NSFileProviderPage?)
    func finishEnumeratingWithError(_ error: any Error)
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
public protocol NSFileProviderChangeObserver: NSObjectProtocol {
    func didUpdate(_ updatedItems: [any NSFileProviderItemProtocol])
    func didDeleteItems(withIdentifiers deletedItemIdentifiers: [NSFileProviderItemIdentifier])
    func finishEnumeratingChanges(upTo anchor: NSFileProviderSyncAnchor, moreComing: Bool)
    func finishEnumeratingWithError(_ error: any Error)
}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
public protocol NSFileProviderEnumerator: NSObjectProtocol {
    func invalidate()
    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage)
    /// `@objc optional` in Apple's SDK.
    func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor)
    /// `@objc optional` in Apple's SDK.
    func currentSyncAnchor(completionHandler: @escaping @Sendable (NSFileProviderSyncAnchor?) -> Void)
}

extension NSFileProviderEnumerator {
    public func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor) {
        observer.finishEnumeratingChanges(upTo: syncAnchor, moreComing: false)
    }
    public func currentSyncAnchor(completionHandler: @escaping @Sendable (NSFileProviderSyncAnchor?) -> Void) { completionHandler(nil) }
}

@available(iOS 16.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
open class NSFileProviderRequest: NSObject {}

@available(iOS 11.0, macOS 11.0, visionOS 1.0, *)
@available(watchOS, unavailable) @available(tvOS, unavailable)
open class NSFileProviderDomain: NSObject {
    private let domainIdentifier: NSFileProviderDomainIdentifier
    private let name: String

    @available(iOS 16.0, macOS 11.0, *)
    public init(identifier: NSFileProviderDomainIdentifier, displayName: String) {
        domainIdentifier = identifier
        name = displayName
    }

    open var identifier: NSFileProviderDomainIdentifier { domainIdentifier }
    open var displayName: String { name }
}

@available(iOS 16.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
public protocol NSFileProviderEnumerating: NSObjectProtocol {
    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator
}

/// Reduced: Apple's also requires `item(for:request:completionHandler:)`, `fetchContents…`, `createItem…`,
/// `modifyItem…` and `deleteItem…`, which the glue does not touch.
@available(iOS 16.0, macOS 11.0, visionOS 1.0, *)
@available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
public protocol NSFileProviderReplicatedExtension: NSFileProviderEnumerating {
    init(domain: NSFileProviderDomain)
    func invalidate()
}

/// The non-replicated extension: iOS and visionOS only.
@available(iOS 8.0, visionOS 1.0, *)
@available(macOS, unavailable) @available(macCatalyst, unavailable) @available(watchOS, unavailable) @available(tvOS, unavailable)
open class NSFileProviderExtension: NSObject {
    public override init() { super.init() }

    @available(iOS 11.0, *)
    open func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier) throws -> any NSFileProviderEnumerator {
        throw CocoaError(.featureUnsupported)
    }
}
#endif
