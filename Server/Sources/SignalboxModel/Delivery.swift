import Foundation
import SignalboxAPI

/// An accepted event, as stored before the 202 answer.
public struct EventRecord: Sendable, Hashable {
    public var id: String
    public var appId: String
    public var request: EventRequest
    public var createdAt: Date

    public init(id: String, appId: String, request: EventRequest, createdAt: Date) {
        self.id = id
        self.appId = appId
        self.request = request
        self.createdAt = createdAt
    }
}

/// Where an event is: `accepted` → `fanning-out` → `delivering` → `done`, or `failed` when its fan-out kept
/// failing (the pushes it had already stored are still delivered). `done` is never stored: `EventStatus` derives it
/// (the one rule; the SQL backends state it once as `eventIsDone`).
public enum EventState: String, Sendable, Hashable {
    case accepted, fanningOut = "fanning-out", delivering, done, failed
}

/// An event waiting for (more of) its fan-out: what the fan-out needs to take turns between apps.
public struct QueuedEvent: Sendable, Hashable {
    public var id: String
    public var appId: String
    public var createdAt: Date

    public init(id: String, appId: String, createdAt: Date) {
        self.id = id
        self.appId = appId
        self.createdAt = createdAt
    }
}

extension EventRecord {
    /// The event as the fan-out queues it.
    public var queued: QueuedEvent { QueuedEvent(id: id, appId: appId, createdAt: createdAt) }
}

/// An event's state and counters (`design.md` API contract).
public struct EventStatus: Sendable, Hashable {
    public var state: EventState
    /// Pushes planned, coalesced ones included.
    public var matched: Int
    /// Planned pushes absorbed into a push already pending for the same token and payload.
    public var coalesced: Int
    public var delivered: Int
    public var failed: Int
    public var pruned: Int
    /// Why the event is `failed`.
    public var reason: String?
    /// Planned pushes without a final outcome yet.
    public var pending: Int { max(0, matched - delivered - failed - pruned) }

    /// An event `delivering` whose every planned push has an outcome is `done`.
    public init(state: EventState, matched: Int, coalesced: Int, delivered: Int, failed: Int, pruned: Int, reason: String? = nil) {
        self.state = state == .delivering && max(0, matched - delivered - failed - pruned) == 0 ? .done : state
        self.reason = reason
        self.matched = matched
        self.coalesced = coalesced
        self.delivered = delivered
        self.failed = failed
        self.pruned = pruned
    }
}

/// What one fan-out step did.
public struct FanOutStep: Sendable, Hashable {
    /// Pushes the batch planned.
    public var planned: Int
    /// Of those, absorbed into pending pushes.
    public var coalesced: Int
    /// Whether the event's audience is exhausted.
    public var finished: Bool
    /// Pushes due now that were stored already claimed by this process, for the dispatcher to send as they are.
    public var handedOff: [OutboxPush]
    /// Another instance is fanning the event out right now: nothing was done, try again later.
    public var busy: Bool

    public init(planned: Int, coalesced: Int, finished: Bool, handedOff: [OutboxPush] = [], busy: Bool = false) {
        self.planned = planned
        self.coalesced = coalesced
        self.finished = finished
        self.handedOff = handedOff
        self.busy = busy
    }
}

/// A push in the outbox, claimed for sending. Its fields sit in one shared immutable box: a push is copied from the
/// claim to the dispatcher, its request, its completion and the recording of its result, and each copy then costs one
/// retain instead of one per string. Setting a field (tests, the memory store) replaces the box.
public struct OutboxPush: Sendable, Hashable {
    private var box: Box

    public var id: String { get { box.fields.id } set { set(\.id, newValue) } }
    public var appId: String { get { box.fields.appId } set { set(\.appId, newValue) } }
    /// The event that planned it (others may have been absorbed into it).
    public var eventId: String { get { box.fields.eventId } set { set(\.eventId, newValue) } }
    public var installationId: String { get { box.fields.installationId } set { set(\.installationId, newValue) } }
    public var token: String { get { box.fields.token } set { set(\.token, newValue) } }
    public var kind: PushKind { get { box.fields.kind } set { set(\.kind, newValue) } }
    public var environment: Environment { get { box.fields.environment } set { set(\.environment, newValue) } }
    public var payload: String { get { box.fields.payload } set { set(\.payload, newValue) } }
    /// Sending attempts made before this one.
    public var attempts: Int { get { box.fields.attempts } set { set(\.attempts, newValue) } }
    /// When the (first) event behind it was accepted.
    public var eventCreatedAt: Date { get { box.fields.eventCreatedAt } set { set(\.eventCreatedAt, newValue) } }
    /// Whether later events were absorbed into it (their counters follow its outcome too).
    public var carriesAbsorbedEvents: Bool {
        get { box.fields.carriesAbsorbedEvents }
        set { set(\.carriesAbsorbedEvents, newValue) }
    }

    public init(
        id: String, appId: String, eventId: String, installationId: String, token: String, kind: PushKind, environment: Environment,
        payload: String, attempts: Int, eventCreatedAt: Date, carriesAbsorbedEvents: Bool = false
    ) {
        box = Box(Fields(
            id: id, appId: appId, eventId: eventId, installationId: installationId, token: token, kind: kind, environment: environment,
            payload: payload, attempts: attempts, eventCreatedAt: eventCreatedAt, carriesAbsorbedEvents: carriesAbsorbedEvents
        ))
    }

    private mutating func set<Value>(_ field: WritableKeyPath<Fields, Value>, _ value: Value) {
        var fields = box.fields
        fields[keyPath: field] = value
        box = Box(fields)
    }

    public static func == (lhs: OutboxPush, rhs: OutboxPush) -> Bool { lhs.box === rhs.box || lhs.box.fields == rhs.box.fields }

    public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }

    private struct Fields: Sendable, Hashable {
        var id, appId, eventId, installationId, token: String
        var kind: PushKind
        var environment: Environment
        var payload: String
        var attempts: Int
        var eventCreatedAt: Date
        var carriesAbsorbedEvents: Bool
    }

    private final class Box: Sendable {
        let fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }
}

/// What to record for a push after its attempt.
public enum DeliveryResult: Sendable, Hashable {
    case delivered
    /// Back to pending until `at`, one attempt used.
    case retry(at: Date)
    /// Back to pending until `at` without using an attempt (the app is paused).
    case postpone(at: Date)
    /// Refused for good.
    case failed(reason: String)
    /// 410: remove the token if it was last registered before `since` (always when `nil`), else failed.
    case prune(since: Date?, reason: String)
    /// `BadDeviceToken` / `DeviceTokenNotForTopic`: a strike; the second strike removes the token.
    case suspect(reason: String)
}

/// A push and its result, applied together.
public struct PushCompletion: Sendable, Hashable {
    public var push: OutboxPush
    public var result: DeliveryResult
    /// What APNs answered, for the delivery log.
    public var answer: DeliveryAnswer

    public init(push: OutboxPush, result: DeliveryResult, answer: DeliveryAnswer = DeliveryAnswer()) {
        self.push = push
        self.result = result
        self.answer = answer
    }
}

/// What applying completions changed in the registry.
public struct CompletionSummary: Sendable, Hashable {
    /// Tokens removed from every registration holding them.
    public var tokensPruned: Int
    /// Results not recorded because the push's claim had ended and another instance had taken it over.
    public var claimsLost: Int

    public init(tokensPruned: Int = 0, claimsLost: Int = 0) {
        self.tokensPruned = tokensPruned
        self.claimsLost = claimsLost
    }
}
