import Foundation
import SignalboxServer

/// What the webhooks page shows: each endpoint's status in words, a test's result, a secret shown once, the form.
struct WebhooksPage {
    let chrome: Chrome
    let app: Chrome.AppLink
    let bundleId: String
    let endpoints: [Row]
    let test: Test?
    let secret: NewSecret?
    let form: Form

    /// One endpoint: delivering (its last attempt succeeded), failing (its last attempt failed), or not tried yet.
    struct Row {
        let id: String
        let url: String
        let eventTypes: String
        let state: String
        let tone: String
        let lastSuccess: String?
        let lastError: String?
        let lastErrorAt: String?
        let backlog: Int
        let previousUntil: String?

        init(_ endpoint: WebhookEndpointResponse) {
            id = endpoint.id
            url = endpoint.url
            eventTypes = endpoint.eventTypes.isEmpty ? "all" : endpoint.eventTypes.joined(separator: ", ")
            let failing = endpoint.lastErrorAt.map { error in endpoint.lastSuccessAt.map { $0 < error } ?? true } ?? false
            (state, tone) = failing ? ("failing", "bad") : endpoint.lastSuccessAt == nil ? ("no deliveries yet", "warn") : ("delivering", "ok")
            lastSuccess = endpoint.lastSuccessAt.map(DashboardFormat.time)
            lastError = endpoint.lastError
            lastErrorAt = endpoint.lastErrorAt.map(DashboardFormat.time)
            backlog = endpoint.backlog
            previousUntil = endpoint.previousSecretValidUntil.map(DashboardFormat.time)
        }
    }

    /// A test delivery's outcome: status, time, a plain error; never the endpoint's answer body.
    struct Test {
        let id: String
        let delivered: Bool
        let summary: String

        init(id: String, _ result: WebhookTestResponse) {
            self.id = id
            delivered = result.delivered
            summary = [
                result.status.map { "HTTP \($0)" }, result.latencyMs.map { "in \($0) ms" }, result.error,
            ].compactMap { $0 }.joined(separator: ", ")
        }
    }

    /// A new endpoint's or a rotation's secret: on this page once, never again.
    struct NewSecret {
        let heading: String
        let id: String
        let url: String
        let secret: String
        /// After a rotation: until when the previous secret also signs.
        let previousUntil: String?
    }

    struct Form {
        let url: String
        let kinds: [Kind]
        struct Kind { let name: String; let checked: Bool }
    }
}
