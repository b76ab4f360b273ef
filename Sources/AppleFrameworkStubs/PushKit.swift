#if os(Linux)
import Foundation

// PushKit as Apple's SDK declares it (PKPushRegistry.h, PushKit DocC; see docs/apple-symbols.md), reduced to what
// SignalboxClientApple touches. Apple's `@objc optional` requirements cannot be declared without Objective-C, so
// they are requirements here with empty default implementations: a conformer implements them or not, as on
// Apple platforms, and nothing outside the system (here, `AppleStubRuntime`) calls them.

public struct PKPushType: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension PKPushType {
    @available(iOS 11.0, macOS 10.15, macCatalyst 13.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    public static let fileProvider = PKPushType(rawValue: "PKPushTypeFileProvider")
}

open class PKPushCredentials: NSObject {
    private let credentialType: PKPushType
    private let credentialToken: Data
    open var type: PKPushType { credentialType }
    open var token: Data { credentialToken }

    /// Apple: "Don't create PKPushCredentials objects yourself"; the stub's system (`AppleStubRuntime`) does.
    init(type: PKPushType, token: Data) {
        credentialType = type
        credentialToken = token
    }
}

open class PKPushPayload: NSObject {
    open var type: PKPushType { .fileProvider }
    open var dictionaryPayload: [AnyHashable: Any] { [:] }
}

public protocol PKPushRegistryDelegate: NSObjectProtocol {
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    /// `@objc optional` in Apple's SDK.
    func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () -> Void
    )
    /// `@objc optional` in Apple's SDK.
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
}

extension PKPushRegistryDelegate {
    public func pushRegistry(
        _ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType,
        completion: @escaping @Sendable () -> Void
    ) { completion() }
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}

/// Apple calls the delegate on `queue` (the main queue when `nil`); the stub's system calls it on the thread that
/// changes the token (`AppleStubRuntime.updatePushToken`).
open class PKPushRegistry: NSObject {
    open weak var delegate: (any PKPushRegistryDelegate)?
    open var desiredPushTypes: Set<PKPushType>? {
        didSet { if desiredPushTypes?.isEmpty == false { AppleStubRuntime.registryWantsTokens(self) } }
    }

    public init(queue: DispatchQueue?) {
        super.init()
        AppleStubRuntime.track(self)
    }

    open func pushToken(for type: PKPushType) -> Data? {
        AppleStubRuntime.system.withLock { $0.pushTokens[type.rawValue] }
    }
}
#endif
