import Foundation
import SignalboxAPI
import SignalboxModel

extension Dispatcher {
    /// Records an app's pause or resumption for its webhooks; a failure is logged, never fails the push.
    /// - Parameters:
    ///   - reason: APNs' reason for a pause.
    ///   - until: when sending is tried again.
    func report(_ kind: LifecycleEvent.Kind, appId: String, reason: String? = nil, until: Date? = nil) async {
        guard let lifecycle else { return }
        var data: [String: JSONValue] = [:]
        if let reason { data["reason"] = .string(reason) }
        if let until { data["pausedUntil"] = .string(SignalboxJSON.format(until)) }
        do {
            try await lifecycle.recordLifecycleEvents([.make(appId: appId, kind: kind, at: now(), data: data)])
        } catch {
            logger.error("recording a lifecycle event failed", metadata: ["app": "\(appId)", "type": "\(kind.rawValue)", "error": "\(error)"])
        }
    }
}
