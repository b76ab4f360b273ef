import Foundation
import SignalboxModel

/// Makes one signed attempt of a lifecycle event to an endpoint and says what became of it.
public struct WebhookPoster: Sendable {
    public static let eventIdHeader = "Signalbox-Event-Id"
    public static let eventTypeHeader = "Signalbox-Event-Type"

    let transport: any WebhookTransport
    let timeout: Duration
    /// Run before every attempt: a URL whose host is (now) not public is not sent to.
    let target: WebhookTargetCheck
    /// The wall clock: the signature's `t`.
    let now: @Sendable () -> Date

    public init(transport: any WebhookTransport, timeout: Duration, target: WebhookTargetCheck, now: @escaping @Sendable () -> Date = { Date() }) {
        self.transport = transport
        self.timeout = timeout
        self.target = target
        self.now = now
    }

    /// What one attempt got.
    public struct Outcome: Sendable, Equatable {
        /// The answer's status, if one came.
        public var status: Int?
        /// Why it failed (nil: 2xx); never a secret, nor anything the endpoint sent.
        public var error: String?
        /// From the request's start to the answer's status (nil when nothing was sent).
        public var latency: Duration?
        public var delivered: Bool { error == nil }
    }

    /// Posts `event`'s body to `url`, signed with each of `secrets` (current first).
    public func post(_ event: LifecycleEvent, to url: String, secrets: [String]) async -> Outcome {
        switch await target.check(url: url) {
        case .allowed: break
        case .notPublic(let reason), .unresolved(let reason): return Outcome(status: nil, error: "not sent: " + reason)
        }
        let body = Array(event.body.utf8)
        let timestamp = Int64(now().timeIntervalSince1970.rounded(.down))
        let headers = [
            ("Content-Type", "application/json"), ("User-Agent", "Signalbox-Webhooks/1"),
            (WebhookSignature.headerName, WebhookSignature.header(timestamp: timestamp, body: body, secrets: secrets)),
            (Self.eventIdHeader, event.id), (Self.eventTypeHeader, event.kind.rawValue),
        ]
        let start = ContinuousClock.now
        do {
            let status = try await transport.post(url: url, headers: headers, body: body, deadline: start + timeout)
            let latency = ContinuousClock.now - start
            return (200..<300).contains(status)
                ? Outcome(status: status, latency: latency) : Outcome(status: status, error: "the endpoint answered HTTP \(status)", latency: latency)
        } catch {
            return Outcome(status: nil, error: Self.describe(error, timeout: timeout), latency: ContinuousClock.now - start)
        }
    }

    /// A short, secret-free description of a transport failure (the URL is the operator's own).
    static func describe(_ error: any Error, timeout: Duration) -> String {
        let text = String(describing: error)
        if text.contains("deadlineExceeded") || text.contains("readTimeout") || text.contains("connectTimeout") {
            return "no answer within \(timeout)"
        }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("NIOSSL") || text.contains("TLS") || text.contains("handshake") { return "TLS failed: \(text.prefix(200))" }
        return "delivery failed: \(text.prefix(200))"
    }
}
