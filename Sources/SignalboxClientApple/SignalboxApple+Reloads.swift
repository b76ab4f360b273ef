import Foundation
import SignalboxClient

/// Reload receipts from the widget and control extensions: the timeline provider's `getTimeline` or the control's
/// value provider calls `reloaded` when the system asks it for content, so Signalbox can tell how many pushes
/// were followed by a reload and how long after the event.
extension SignalboxApple {
    /// How long receipts gather before they are sent: the kinds a push reloads together go in one request.
    static let reloadSendDelay: Duration = .seconds(2)

    /// Records that `kind` reloaded now and sends the receipts shortly (or with the next `sync()`). Cheap: one
    /// store update; the extension is not kept waiting on the network.
    public func reloaded(kind: String, pushType: ReloadPushType) {
        try? queue.recordReload(kind: kind, pushType: pushType)
        guard !reloadSendScheduled.withLock({ value in defer { value = true }; return value }) else { return }
        Task { [weak self] in
            try? await Task.sleep(for: Self.reloadSendDelay)
            guard let signalbox = self else { return }
            signalbox.reloadSendScheduled.withLock { $0 = false }
            await signalbox.sync()
        }
    }

    /// `reloaded(kind:pushType:)` on the instance `configure` made; nothing before `configure`.
    public static func reloaded(kind: String, pushType: ReloadPushType) {
        current?.reloaded(kind: kind, pushType: pushType)
    }
}
