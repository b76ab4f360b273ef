import Foundation
import SignalboxServer
import SignalboxDelivery
import SignalboxModel

/// What every page's layout shows: title, navigation, the session's CSRF token, an error banner.
struct Chrome {
    let title: String
    /// Absent when signed out (no navigation, no sign-out form).
    let csrf: String?
    let isAdmin: Bool
    /// The app whose pages the navigation links to.
    let app: AppLink?
    var error: String?

    struct AppLink { let id: String }
}

/// An app as the dashboard lists it: no secret, not even a hash.
struct AppRow {
    let id: String
    let bundleId: String
    let environment: String
    let teamId: String
    let keyId: String
    let created: String
    let paused: Pause?

    struct Pause {
        let reason: String
        let until: String
    }

    init(_ app: AppRecord, pause: AppPauses.Pause?) {
        id = app.id
        bundleId = app.bundleId
        environment = app.environment.rawValue
        teamId = app.teamId
        keyId = app.keyId
        created = DashboardFormat.time(app.createdAt)
        paused = pause.map { Pause(reason: $0.reason, until: DashboardFormat.time($0.until)) }
    }
}

struct LoginPage { let chrome: Chrome; let loginToken: String }
struct AppsPage { let chrome: Chrome; let apps: [AppRow] }
struct SecretPage { let chrome: Chrome; let heading: String; let appId: String; let bundleId: String; let serverKey: String?; let deviceSecret: String? }
struct DeleteAppPage { let chrome: Chrome; let id: String; let bundleId: String }
struct MessagePage { let chrome: Chrome; let heading: String; let text: String }

/// A labelled figure on a card.
struct Figure { let label: String; let value: Int }

/// A count per outcome, with the largest count for the meters.
struct OutcomeRow {
    let name: String
    let count: Int
    let max: Int
    let tone: String

    static func rows(_ counts: [DeliveryOutcome: Int]) -> [OutcomeRow] {
        let largest = counts.values.max() ?? 0
        return counts.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }.map {
            OutcomeRow(name: $0.key.rawValue, count: $0.value, max: largest, tone: DashboardFormat.tone(outcome: $0.key))
        }
    }
}

/// One kind's reload receipts over the last hour: pushes delivered, reloads matched to them, their share, and the
/// event-to-reload latency (nearest-rank p50/p95 of the stored rows).
struct ReloadRow {
    let type: String
    let kind: String
    let delivered: Int
    let matched: Int
    let unmatched: Int
    let share: String
    let p50: String
    let p95: String

    init(_ stats: ReloadStats) {
        type = stats.pushType.rawValue
        kind = stats.kind
        delivered = stats.delivered
        matched = stats.matched
        unmatched = stats.unmatched
        share = stats.delivered > 0 ? "\(Int((Double(stats.matched) / Double(stats.delivered) * 100).rounded())) %" : "–"
        p50 = stats.quantile(0.5).map(Self.seconds) ?? "–"
        p95 = stats.quantile(0.95).map(Self.seconds) ?? "–"
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}

struct EventRow {
    let appId: String
    let id: String
    let created: String
    let state: String
    let tone: String
    let matched: Int, delivered: Int, pending: Int, failed: Int, pruned: Int, coalesced: Int
    let reason: String?

    init(appId: String, _ event: EventSummary) {
        self.appId = appId
        id = event.id
        created = DashboardFormat.time(event.createdAt)
        let status = event.status
        state = status.state.rawValue
        tone = DashboardFormat.tone(state: status.state)
        matched = status.matched
        delivered = status.delivered
        pending = status.pending
        failed = status.failed
        pruned = status.pruned
        coalesced = status.coalesced
        reason = status.reason
    }

    var figures: [Figure] {
        [
            Figure(label: "matched", value: matched), Figure(label: "delivered", value: delivered), Figure(label: "pending", value: pending),
            Figure(label: "failed", value: failed), Figure(label: "pruned", value: pruned), Figure(label: "coalesced", value: coalesced),
        ]
    }
}

struct LogLine {
    let appId: String
    let at: String
    let token: String
    let shortToken: String
    let pushType: String
    let eventId: String?
    let attempt: Int
    let outcome: String
    let tone: String
    let status: String
    let reason: String
    let apnsId: String

    init(_ entry: DeliveryLogEntry) {
        appId = entry.appId
        at = DashboardFormat.time(entry.at)
        token = entry.token
        shortToken = entry.token.count > 16 ? "\(entry.token.prefix(8))…\(entry.token.suffix(6))" : entry.token
        pushType = entry.pushType
        eventId = entry.eventId
        attempt = entry.attempt
        outcome = entry.outcome.rawValue
        tone = DashboardFormat.tone(outcome: entry.outcome)
        status = entry.answer.status.map(String.init) ?? "–"
        reason = entry.answer.reason ?? ""
        apnsId = entry.answer.apnsId ?? ""
    }
}

struct OverviewPage {
    let chrome: Chrome
    let app: AppRow
    let counts: [Figure]
    let outcomes: [OutcomeRow]
    let reloads: [ReloadRow]
    let events: [EventRow]
}

struct EventPage {
    let chrome: Chrome
    let event: EventRow
    let counts: [Figure]
    let outcomes: [OutcomeRow]
    let lines: [LogLine]
}

struct InspectPage {
    let chrome: Chrome
    let app: Chrome.AppLink
    let query: String
    let nothingFound: Bool
    let user: UserMatch?
    let installation: InstallationMatch?
    let tokens: [TokenMatch]

    struct UserMatch { let userId: String; let installations: [String] }
    struct InstallationMatch {
        let id: String
        let userId: String?
        let channels: String
        let environment: String
        let lastSeen: String
        let tokens: [TokenKind]
        let lines: [LogLine]
    }
    struct TokenKind { let token: String; let kind: String }
    struct TokenMatch {
        let token: String
        let registrations: [Registration]
        let lines: [LogLine]
        /// Stored, not computed: templates see stored properties only (they are read by reflection).
        let hasRegistrations: Bool

        init(token: String, registrations: [Registration], lines: [LogLine]) {
            self.token = token
            self.registrations = registrations
            self.lines = lines
            hasRegistrations = !registrations.isEmpty
        }
    }
    struct Registration {
        let installationId: String
        let userId: String
        let kind: String
        let targets: String
        let configurations: String
        let seen: String

        init(_ registration: TokenRegistration) {
            installationId = registration.installationId
            userId = registration.userId ?? "–"
            kind = registration.kind.rawValue
            targets = registration.targets.joined(separator: ", ")
            configurations = Array(Set(registration.configurations)).sorted().joined(separator: " ")
            seen = DashboardFormat.time(registration.tokenSeenAt)
        }
    }
}

struct SendPage {
    let chrome: Chrome
    let app: Chrome.AppLink
    let form: Form
    let result: Result?

    struct Option { let value: String; let selected: Bool }
    struct Form {
        let token: String
        let payload: String
        let types: [Option]
        let environments: [Option]
    }
    struct Result {
        let token: String
        let status: Int
        let outcome: String
        let reason: String?
        let apnsId: String?
        let tone: String
        let badge: String

        init(token: String, status: Int, outcome: String, reason: String?, apnsId: String?) {
            self.token = token
            self.status = status
            self.outcome = outcome
            self.reason = reason
            self.apnsId = apnsId
            tone = status == 200 ? "secret" : "error"
            badge = status == 200 ? "ok" : "bad"
        }
    }
}

/// How the dashboard writes times and picks colours.
enum DashboardFormat {
    /// `2026-11-25 01:33:46` (UTC).
    static func time(_ date: Date) -> String {
        let text = date.formatted(Date.ISO8601FormatStyle())
        return text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }

    static func tone(outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered: "ok"
        case .retry, .postponed: "warn"
        case .failed, .pruned: "bad"
        }
    }

    static func tone(state: EventState) -> String {
        switch state {
        case .done: "ok"
        case .failed: "bad"
        default: "warn"
        }
    }
}
