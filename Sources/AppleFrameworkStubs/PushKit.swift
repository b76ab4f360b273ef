#if os(Linux)
import Foundation

// The PushKit API SignalboxClientApple uses, from Apple's public documentation (Linux type-checking only).

public struct PKPushType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let fileProvider = PKPushType(rawValue: "PKPushTypeFileProvider")
}

open class PKPushCredentials: NSObject {
    open var type: PKPushType { .fileProvider }
    open var token: Data { Data() }
}

open class PKPushPayload: NSObject {
    open var type: PKPushType { .fileProvider }
    open var dictionaryPayload: [AnyHashable: Any] { [:] }
}

public protocol PKPushRegistryDelegate: AnyObject {
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
}

open class PKPushRegistry: NSObject {
    public init(queue: DispatchQueue?) {}
    open weak var delegate: (any PKPushRegistryDelegate)?
    open var desiredPushTypes: Set<PKPushType>?
    open func pushToken(for type: PKPushType) -> Data? { nil }
}
#endif
