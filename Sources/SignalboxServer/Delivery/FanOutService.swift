import Foundation
import Logging
import ServiceLifecycle
import SignalboxModel
import SignalboxStore

/// Fans accepted events out into the outbox, one page of installations per transaction, so memory stays
/// flat whatever the audience and a restart resumes at the stored cursor.
struct FanOutService: Service {
    let store: any DeliveryStore
    let signals: DeliverySignals
    let batchSize: Int
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let events = try await store.eventsToFanOut(limit: 16)
                    for event in events where !Task.isCancelled { try await fanOut(event) }
                    if events.isEmpty { await signals.fanOut.wait(upTo: .seconds(1)) }
                } catch {
                    logger.error("fan-out failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    private func fanOut(_ event: EventRecord) async throws {
        var planned = 0
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let step = try await store.fanOutStep(eventId: event.id, batchSize: batchSize, now: Date())
            logger.debug("fan-out step", metadata: [
                "event": "\(event.id)", "pushes": "\(step.planned)", "coalesced": "\(step.coalesced)", "took": "\(ContinuousClock.now - started)",
            ])
            planned += step.planned
            if step.planned > step.coalesced { signals.outbox.signal() }
            if step.finished { break }
        }
        logger.debug("event fanned out", metadata: ["event": "\(event.id)", "pushes": "\(planned)"])
    }
}
