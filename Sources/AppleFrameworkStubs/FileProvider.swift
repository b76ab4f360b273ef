#if os(Linux)
import Foundation

// The FileProvider API SignalboxClientApple uses, from Apple's public documentation (Linux type-checking only).

public struct NSFileProviderItemIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let rootContainer = NSFileProviderItemIdentifier("NSFileProviderRootContainerItemIdentifier")
    public static let workingSet = NSFileProviderItemIdentifier("NSFileProviderWorkingSetContainerItemIdentifier")
}

public struct NSFileProviderDomainIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public struct NSFileProviderPage: RawRepresentable, Hashable, Sendable {
    public let rawValue: Data
    public init(rawValue: Data) { self.rawValue = rawValue }
}

public struct NSFileProviderSyncAnchor: RawRepresentable, Hashable, Sendable {
    public let rawValue: Data
    public init(rawValue: Data) { self.rawValue = rawValue }
}

public protocol NSFileProviderEnumerationObserver: AnyObject {}
public protocol NSFileProviderChangeObserver: AnyObject {}

public protocol NSFileProviderEnumerator: AnyObject {
    func invalidate()
    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage)
    func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor)
    func currentSyncAnchor(completionHandler: @escaping (NSFileProviderSyncAnchor?) -> Void)
}
#endif
