import Foundation
import SignalboxAPI
import SignalboxModel

/// Everything a `MemoryStore` holds: the tables of the SQL schema that the ports read, as Swift values.
struct MemoryState {
    var apps: [String: AppRecord] = [:]
    var installations: [InstallationKey: StoredInstallation] = [:]
    /// The newest revision of each registration resource a client sent (`RegistryStore`'s `revision`).
    var revisions: [RevisionKey: Int64] = [:]
    var events: [String: StoredEvent] = [:]
    var outbox: [String: StoredPush] = [:]
    /// The pending push of each coalescing key: at most one (`Coalescing`).
    var pending: [Coalescing.Key: String] = [:]
    /// `BadDeviceToken` strikes per app and token (`TokenPruning`).
    var strikes: [TokenKey: Int] = [:]
    var intervals: [String: [PushKind: Int]] = [:]
    /// When each token last got a push of a kind with a minimum interval (ms).
    var lastSent: [LastSentKey: Int64] = [:]
    /// Push ids are in the order pushes are made, as the SQL backends' are within one process.
    var pushCount: UInt64 = 0

    mutating func nextPushId() -> String {
        pushCount += 1
        let digits = String(pushCount, radix: 16)
        return "m" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The app's installations, by id.
    func installations(of appId: String) -> [(id: String, installation: StoredInstallation)] {
        installations.filter { $0.key.appId == appId }.map { ($0.key.id, $0.value) }.sorted { $0.id < $1.id }
    }
}

struct InstallationKey: Hashable {
    var appId: String
    var id: String
}

struct RevisionKey: Hashable {
    var appId: String
    var installationId: String
    var resource: String
}

struct TokenKey: Hashable {
    var appId: String
    var token: String
}

struct LastSentKey: Hashable {
    var appId: String
    var token: String
    var kind: PushKind
}

/// An installation and what it registered; each token with the time a registration last renewed it (ms).
struct StoredInstallation {
    var installation: Installation
    var lastSeen: Int64
    var widgets: WidgetRegistration?
    var widgetsSeen: Int64 = 0
    var controls: [Control] = []
    var controlsSeen: Int64 = 0
    /// Domains by id, as the SQL backends read them back.
    var fileProvider: FileProviderRegistration?
    var fileProviderSeen: Int64 = 0
    var enumerators: [EnumeratorKey: Int64] = [:]

    /// Whether a registration holds `token` (renewed at or after `since`, when given).
    func holds(_ token: String, seenSince since: Int64? = nil) -> Bool {
        let since = since ?? .min
        return (widgets?.pushToken == token && widgetsSeen >= since)
            || (controls.contains { $0.pushToken == token } && controlsSeen >= since)
            || (fileProvider?.pushToken == token && fileProviderSeen >= since)
    }

    /// Removes `token` from every registration here: widgets with their token, the controls that use it, the
    /// File Provider token with its domains and enumerators.
    mutating func remove(_ token: String) {
        if widgets?.pushToken == token { widgets = nil }
        controls.removeAll { $0.pushToken == token }
        if fileProvider?.pushToken == token {
            fileProvider = nil
            enumerators = [:]
        }
    }
}

struct EnumeratorKey: Hashable, Comparable {
    var domain: String
    var container: String

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.domain, lhs.container) < (rhs.domain, rhs.container) }
}

/// An event and its counters; `done` is derived by `EventStatus`, never stored.
struct StoredEvent {
    var record: EventRecord
    var state: EventState
    /// The last installation id planned.
    var cursor = ""
    var matched = 0, coalesced = 0, delivered = 0, failed = 0, pruned = 0
    var reason: String?

    var status: EventStatus {
        EventStatus(state: state, matched: matched, coalesced: coalesced, delivered: delivered, failed: failed, pruned: pruned, reason: reason)
    }

    /// Whether its fan-out is still to do.
    var plannable: Bool { state == .accepted || state == .fanningOut }

    mutating func add(_ count: Int, to counter: EventCounter) {
        switch counter {
        case .delivered: delivered += count
        case .failed: failed += count
        case .pruned: pruned += count
        }
    }
}

/// A push in the outbox: pending (no claim) or being sent (a claim with its owner and lease).
struct StoredPush {
    var id: String
    var appId: String
    var installationId: String
    var token: String
    var kind: PushKind
    var environment: Environment
    var payload: String
    var attempts = 0
    /// When it is due (ms).
    var due: Int64
    var eventCreatedAt: Int64
    var carried: Coalescing.Carried
    var claim: (owner: String, leaseUntil: Int64)?

    var key: Coalescing.Key { Coalescing.Key(appId: appId, token: token, payload: payload) }
    var isPending: Bool { claim == nil }

    var outboxPush: OutboxPush {
        OutboxPush(
            id: id, appId: appId, eventId: carried.event, installationId: installationId, token: token, kind: kind,
            environment: environment, payload: payload, attempts: attempts, eventCreatedAt: Date(milliseconds: eventCreatedAt),
            carriesAbsorbedEvents: carried.carriesAbsorbedEvents
        )
    }
}

extension Date {
    /// Unix milliseconds, as every backend stores times.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
    /// This time as a backend reads it back.
    var stored: Date { Date(milliseconds: milliseconds) }
}
