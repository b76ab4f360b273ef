import Foundation
import SignalboxModel
import SignalboxStoreTestSupport

/// One backend in the cross-check: two processes on one storage (the active one does the work; a restart hands
/// over to the other) and the pushes the active one holds, by what identifies them on every backend.
struct CrossCheckReplica {
    let name: String
    let stores: [PortStores]
    var active = 0
    /// Claimed or handed-off pushes the active process has not completed yet.
    var inFlight: [PushIdentity: OutboxPush] = [:]
    /// Pushes a stopped process still held when it stopped: its late answers must be fenced out.
    var stale: [PushIdentity: OutboxPush] = [:]

    var store: PortStores { stores[active] }
    var stopped: PortStores { stores[1 - active] }

    /// Takes these pushes in flight. - Returns: what every backend can compare of them, sorted.
    mutating func hold(_ pushes: [OutboxPush]) -> String {
        for push in pushes { inFlight[PushIdentity(push)] = push }
        return pushes.map(PushIdentity.described).sorted().joined(separator: ", ")
    }
}

/// What identifies a push on every backend (their push ids differ).
struct PushIdentity: Hashable, Comparable, CustomStringConvertible {
    var appId, eventId, installationId, token, payload: String

    init(_ push: OutboxPush) {
        appId = push.appId
        eventId = push.eventId
        installationId = push.installationId
        token = push.token
        payload = push.payload
    }

    var description: String { "\(appId)/\(eventId)/\(installationId)/\(token)/\(payload)" }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

extension PushIdentity {
    /// A push with what its claim says about it: attempts, absorbed events, kind, environment, event time.
    static func described(_ push: OutboxPush) -> String {
        let absorbed = push.carriesAbsorbedEvents ? " +absorbed" : ""
        return "\(PushIdentity(push)) attempts \(push.attempts)\(absorbed) \(push.kind.rawValue) \(push.environment.rawValue)"
            + " at \(push.eventCreatedAt.timeIntervalSince1970)"
    }
}
