#if canImport(PushKit)
import PushKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if canImport(PushKit) || SIGNALBOX_APPLE_STUBS
import Foundation
import SignalboxAPI

/// Registers the PushKit File Provider token with the configured domains; usable in the app and in the
/// File Provider extension. Keep the registry alive as long as the delegate.
@available(iOS 16.0, macOS 13.0, *)
public final class FileProviderPushDelegate: NSObject, PKPushRegistryDelegate {
    public let registry: PKPushRegistry

    public override init() {
        registry = PKPushRegistry(queue: nil)
        super.init()
        registry.delegate = self
        registry.desiredPushTypes = [.fileProvider]
    }

    public func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        guard type == .fileProvider, let signalbox = SignalboxApple.current else { return }
        let token = pushCredentials.token.map { String(format: "%02x", $0) }.joined()
        try? signalbox.queue.set(.fileProvider(FileProviderRequest(pushToken: token, domains: signalbox.configuration.fileProviderDomains)))
        Task { await signalbox.sync() }
    }

    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}
#endif
