import Foundation
import Logging
import ServiceLifecycle
import SignalboxDelivery
import SignalboxModel

/// Sends queued webhook deliveries, apart from pushes: its own loop, at most `maxConcurrent` requests at once,
/// each with a deadline. Deliveries are claimed with a lease, so instances sharing a database never send one at
/// once, and one claimed by a stopped instance is sent by another when its lease ends. A failed attempt waits its
/// back-off and is tried again until it is delivered or its endpoint deleted (at least once).
public struct WebhookDispatcher: Service {
    let store: any WebhookStore
    let poster: WebhookPoster
    /// The signing secrets of an endpoint at a time, current first (opened from their sealed form).
    let secrets: @Sendable (WebhookEndpoint, Date) throws -> [String]
    let configuration: WebhookConfiguration
    let wakeup: Wakeup
    let logger: Logger
    /// The wall clock: due times, leases, back-off.
    let now: @Sendable () -> Date

    public init(
        store: any WebhookStore, poster: WebhookPoster, secrets: @escaping @Sendable (WebhookEndpoint, Date) throws -> [String],
        configuration: WebhookConfiguration, wakeup: Wakeup = Wakeup(), logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.poster = poster
        self.secrets = secrets
        self.configuration = configuration
        self.wakeup = wakeup
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        let slots = WebhookSlots(limit: configuration.maxConcurrent)
        do {
            let released = try await store.releaseWebhookClaims(now: now())
            if released > 0 { logger.info("webhook deliveries of the previous process released", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error("releasing earlier webhook claims failed", metadata: ["error": "\(error)"])
        }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    let free = slots.free
                    guard free > 0 else {
                        await wakeup.wait(upTo: .seconds(1))
                        continue
                    }
                    var claimed: [WebhookDelivery] = []
                    do {
                        claimed = try await store.claimWebhookDeliveries(now: now(), limit: free, lease: configuration.claimLease)
                    } catch where !Task.isCancelled {
                        logger.error("claiming webhook deliveries failed", metadata: ["error": "\(error)"])
                    } catch {
                        break
                    }
                    for delivery in claimed {
                        slots.take()
                        group.addTask {
                            await attempt(delivery)
                            slots.give()
                            wakeup.signal()
                        }
                    }
                    if claimed.count < free { await wakeup.wait(upTo: await idleWait()) }
                }
            }
        }
    }

    /// Sends one delivery and records what became of it.
    func attempt(_ delivery: WebhookDelivery) async {
        let result: WebhookAttemptResult
        do {
            let outcome = await poster.post(delivery.event, to: delivery.endpoint.url, secrets: try secrets(delivery.endpoint, now()))
            if let error = outcome.error {
                result = .retry(at: now() + configuration.retryDelay(attempts: delivery.attempts + 1).seconds, error: error)
                logger.debug("webhook delivery failed", metadata: [
                    "endpoint": "\(delivery.endpoint.id)", "event": "\(delivery.event.id)", "attempts": "\(delivery.attempts + 1)", "error": "\(error)",
                ])
            } else {
                result = .delivered
            }
        } catch {
            // The secret does not open (another master key): nothing can be signed until the operator fixes it.
            result = .retry(at: now() + configuration.retryCap.seconds, error: "the endpoint's secret does not open with this master key")
        }
        // Shutting down: the attempt was cut short, not failed; the claim is released at the next start or its lease end.
        if Task.isCancelled { return }
        do {
            try await store.completeWebhookDelivery(id: delivery.id, endpointId: delivery.endpoint.id, result: result, now: now())
        } catch {
            // The claim's lease ends and the delivery is sent again: at least once.
            logger.error("recording a webhook delivery failed", metadata: ["endpoint": "\(delivery.endpoint.id)", "error": "\(error)"])
        }
    }

    /// Until the next delivery is due, at most a second (lifecycle events recorded by another instance are seen
    /// within it), at least 10 ms.
    private func idleWait() async -> Duration {
        guard let due = try? await store.nextWebhookDueDate() else { return .seconds(1) }
        let seconds = min(1, max(0.01, due.timeIntervalSince(now())))
        return .milliseconds(Int(seconds * 1000))
    }
}
