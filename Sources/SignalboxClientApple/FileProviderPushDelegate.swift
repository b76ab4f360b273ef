#if canImport(PushKit) && !os(watchOS) && !os(tvOS)
import PushKit
#elseif SIGNALBOX_APPLE_STUBS
import AppleFrameworkStubs
#endif
#if (canImport(PushKit) && !os(watchOS) && !os(tvOS)) || SIGNALBOX_APPLE_STUBS
import Foundation
import SignalboxAPI

/// Registers the PushKit File Provider token with the configured domains; usable in the app and in the File
/// Provider extension. Keep the delegate alive as long as the process wants the token (it keeps the registry).
/// A token that arrives before `SignalboxApple.configure` is kept and registered by `configure`; a token the
/// system invalidates is removed from the server. `PKPushType.fileProvider` does not exist on watchOS and tvOS.
public final class FileProviderPushDelegate: NSObject, PKPushRegistryDelegate {
    public let registry: PKPushRegistry

    public override init() {
        registry = PKPushRegistry(queue: nil)
        super.init()
        registry.delegate = self
        registry.desiredPushTypes = [.fileProvider]
    }

    public func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        guard type == .fileProvider else { return }
        let token = SignalboxApple.hex(pushCredentials.token)
        guard let signalbox = SignalboxApple.current else {
            SignalboxApple.earlyFileProviderToken.withLock { $0 = token }
            return
        }
        try? signalbox.setFileProviderToken(token)
        Task { await signalbox.sync() }
    }

    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
        guard type == .fileProvider else { return }
        SignalboxApple.earlyFileProviderToken.withLock { $0 = nil }
        guard let signalbox = SignalboxApple.current else { return }
        try? signalbox.removeFileProviderToken()
        Task { await signalbox.sync() }
    }
}
#endif
