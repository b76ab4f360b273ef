import Foundation
import SignalboxAPI
import SignalboxAPNs

/// The kind of content-changed push, with its APNs `apns-push-type`.
public enum PushKind: String, Sendable, Hashable, Codable, CaseIterable {
    case widgets, controls, fileprovider

    /// The APNs push type that carries it.
    public var pushType: PushType {
        switch self {
        case .widgets: .widgets
        case .controls: .controls
        case .fileprovider: .fileprovider
        }
    }
}

/// One push the fan-out decided to send.
public struct PlannedPush: Sendable, Hashable {
    public var installationId: String
    public var token: String
    public var kind: PushKind
    public var environment: Environment
    /// The JSON payload, canonical, so equal pushes coalesce.
    public var payload: String

    /// Pushes with the same key coalesce into one (the outbox keeps one pending push per token and payload).
    public var coalescingKey: String { Self.coalescingKey(token: token, payload: payload) }

    public static func coalescingKey(token: String, payload: String) -> String { token + "\u{0}" + payload }

    public init(installationId: String, token: String, kind: PushKind, environment: Environment, payload: String) {
        self.installationId = installationId
        self.token = token
        self.kind = kind
        self.environment = environment
        self.payload = payload
    }
}

/// A registration row the store hands the planner: one installation's token and what it registered.
public struct FanOutCandidate: Sendable, Hashable {
    /// A widget's or control's kind and configuration.
    public struct Entry: Sendable, Hashable {
        public var kind: String
        public var configuration: JSONValue
    }

    public var installationId: String
    public var environment: Environment
    public var token: String
    /// Widgets: every widget's kind and configuration; controls: the one control's.
    public var entries: [Entry]
    /// File Provider: the domain, whether it is replicated, and the containers with a live enumerator.
    public var domain: FileProviderDomain?
    public var liveContainers: Set<String>

    public init(
        installationId: String, environment: Environment, token: String, entries: [(kind: String, configuration: JSONValue)] = [],
        domain: FileProviderDomain? = nil, liveContainers: Set<String> = []
    ) {
        self.installationId = installationId
        self.environment = environment
        self.token = token
        self.entries = entries.map { Entry(kind: $0.kind, configuration: $0.configuration) }
        self.domain = domain
        self.liveContainers = liveContainers
    }
}

/// Decides which pushes an event needs (`design.md` Flow, rule 3). Pure.
public enum FanOutPlanner {
    static let contentChanged = String(decoding: Payload.contentChanged, as: UTF8.self)

    /// The pushes for `target` over candidates the store selected for the audience.
    public static func plan(_ target: EventTarget, candidates: [FanOutCandidate]) -> [PlannedPush] {
        var pushes: [PlannedPush] = []
        var seen = Set<TokenAndPayload>()
        for candidate in candidates {
            guard let push = plan(target, candidate) else { continue }
            if seen.insert(TokenAndPayload(token: push.token, payload: push.payload)).inserted { pushes.append(push) }
        }
        return pushes
    }

    /// What makes pushes coalesce (`PlannedPush.coalescingKey`), compared without building the key's string.
    private struct TokenAndPayload: Hashable {
        let token: String
        let payload: String
    }

    private static func plan(_ target: EventTarget, _ candidate: FanOutCandidate) -> PlannedPush? {
        func push(_ kind: PushKind, _ payload: String) -> PlannedPush {
            PlannedPush(installationId: candidate.installationId, token: candidate.token, kind: kind, environment: candidate.environment, payload: payload)
        }
        switch target {
        case .widgets(let kinds, let filter):
            // One push per installation when any widget has a listed kind and matches.
            guard matches(candidate, kinds: kinds, filter: filter) else { return nil }
            return push(.widgets, contentChanged)
        case .controls(let kinds, let filter):
            guard matches(candidate, kinds: kinds, filter: filter) else { return nil }
            return push(.controls, contentChanged)
        case .fileProvider(let domain, let container):
            guard let registered = candidate.domain, registered.id == domain else { return nil }
            if registered.replicated { return push(.fileprovider, fileProviderPayload(container: Payload.workingSetContainer, domain: domain)) }
            guard container == Payload.workingSetContainer || candidate.liveContainers.contains(container) else { return nil }
            return push(.fileprovider, fileProviderPayload(container: container, domain: domain))
        }
    }

    private static func matches(_ candidate: FanOutCandidate, kinds: [String], filter: [String: JSONValue]?) -> Bool {
        candidate.entries.contains { (kinds.isEmpty || kinds.contains($0.kind)) && $0.configuration.matches(filter: filter ?? [:]) }
    }

    /// `{"container-identifier": …, "domain": …}`, as `Payload` builds it, as text for the outbox.
    public static func fileProviderPayload(container: String, domain: String) -> String {
        String(decoding: Payload.fileProvider(container: container, domain: domain), as: UTF8.self)
    }
}
